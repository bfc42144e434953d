// The proxy's control channel through the engine, for a proxy whose engine does not see this
// process's disk: its control socket stays on its own tmpfs, published nowhere, and each control
// connection is one exec of bridge.js there, whose stdin and stdout carry HTTP (kept alive between
// requests by the control client).
// Invariants: no secret in an argv or a message; the bridge is connected before a byte is sent.

import type { Duplex } from "node:stream";
import { BRIDGE_CONNECTED, BRIDGE_SCRIPT, bridgeCommand } from "../egress/index.js";
import { describeEngineError, type Engine } from "../engine/index.js";

/** Where the proxy listens for control when it is reached through the engine: a directory of its uid's on its /tmp tmpfs. */
export const ENGINE_CONTROL_SOCKET = "/tmp/agentcage-control/egress.sock";
/** The bridge in the proxy's image; its own file says its protocol. */
const BRIDGE_ARGV = bridgeCommand(ENGINE_CONTROL_SOCKET);
/** How long a bridge may take to start and connect: a node start in the proxy's container, on a busy engine. */
const BRIDGE_CONNECT_MS = 15_000;
/** Bytes of what the bridge says on stderr kept for a message. */
const MAX_BRIDGE_WORDS = 512;

/** How messages name the bridge of a proxy: its container, and its engine when it is one of several. */
export function bridgePlace(container: string, engineName: string | undefined): string {
  return `the control bridge (an exec) in the egress proxy's container ${JSON.stringify(container)}${engineName === undefined ? "" : ` on the engine ${JSON.stringify(engineName)}`}`;
}

/**
 * A connection to the control socket of the proxy in `container`, once its bridge is connected.
 * Rejects with what went wrong and what to do: the engine refused the exec (the container is gone),
 * the bridge could not reach the socket (the proxy is not listening), or it is not in the image.
 */
export function bridgeConnector(engine: Engine, container: string, image: string): () => Promise<Duplex> {
  return async () => {
    const session = await engine.exec(container, BRIDGE_ARGV).catch((error: unknown) => {
      throw new Error(`${describeEngineError("exec", error, image)}; is the proxy's container still running?`);
    });
    return new Promise<Duplex>((resolve, reject) => {
      let said = "";
      const fail = async (why: string): Promise<void> => {
        clearTimeout(timer);
        session.stdio.destroy();
        reject(new Error(why));
      };
      const timer = setTimeout(() => void fail(`the bridge did not connect within ${BRIDGE_CONNECT_MS} ms`), BRIDGE_CONNECT_MS);
      const onData = (chunk: Buffer): void => {
        said = (said + chunk.toString("utf8")).slice(0, MAX_BRIDGE_WORDS);
        const line = said.split("\n")[0] ?? "";
        if (!said.includes("\n")) return;
        session.stderr.off("data", onData);
        session.stderr.off("end", onEnd);
        if (line === BRIDGE_CONNECTED) {
          clearTimeout(timer);
          // Drained from now on: a full stderr would stall the connection it shares.
          session.stderr.resume();
          resolve(session.stdio);
        } else void fail(`the bridge said: ${line}`);
      };
      const onEnd = (): void => {
        void session.exit.then((code) =>
          fail(
            `the bridge exited (code ${code ?? "unknown"}) before it connected${said.trim() === "" ? "" : `, saying ${JSON.stringify(said.trim())}`}; if the image ${JSON.stringify(image)} has no ${BRIDGE_SCRIPT}, it is older than this runtime: rebuild it`,
          ),
        );
      };
      session.stderr.on("data", onData);
      // Its stdout is left unread (not paused: http's listener must start it) until it is handed over.
      session.stderr.once("end", onEnd);
    });
  };
}
