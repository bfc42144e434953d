// A proxy the runtime reaches through the engine (control "engine"), on the real engine: no bind
// mount and no trace of the control secret in its container's declaration or the log; a Run
// registers, is metered and revoked over the bridge (an exec, kept while requests come), breaches
// come on the event stream; a proxy that went away is a clear error without the secret; closed, nothing is left.

import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerEngine, type Engine } from "../engine/index.js";
import { CALLER_CONNECTION_IDLE_MS, type EgressBreach } from "../egress/index.js";
import { capturingLogger, docker } from "../../test/support/engine.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";
import { startEgressGateway, type EgressGateway } from "./index.js";

const network = `agentcage-engine-control-${process.pid}`;
const KEY = `sk-ant-api03-engine-control-${randomBytes(12).toString("hex")}`;
const log = capturingLogger();
let gateway: EgressGateway | undefined;
/** What the runtime wrote on the proxy's stdin: the secret, caught on its way to the engine. */
let written = "";

/** The real engine, with what goes to a container's stdin over attach copied here. */
function listeningEngine(): Engine {
  const engine = createDockerEngine();
  return {
    ...engine,
    attach: async (id) => {
      const streams = await engine.attach(id);
      const stdin = streams.stdin as Writable;
      const write = stdin.write.bind(stdin);
      const end = stdin.end.bind(stdin);
      stdin.write = ((chunk: unknown, ...rest: never[]) => {
        written += String(chunk);
        return write(chunk, ...rest);
      }) as typeof stdin.write;
      stdin.end = ((chunk?: unknown, ...rest: never[]) => {
        if (typeof chunk === "string" || Buffer.isBuffer(chunk)) written += String(chunk);
        return end(chunk as never, ...rest);
      }) as typeof stdin.end;
      return streams;
    },
  };
}

beforeAll(async () => {
  docker("network", "create", "--label", `agentcage-test=${network}`, network);
  gateway = await startEgressGateway({ control: "engine", engine: listeningEngine(), networks: [network], standIn: true, logger: log.logger });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  docker("network", "rm", network);
});

/** A model call from a container on the proxy's network, as an agent makes it: the status line and body. */
function modelCall(token: string): string {
  const body = JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 10, stream: false, messages: [] });
  const script = `exec 3<>/dev/tcp/${gateway?.container}/${gateway?.port}; printf 'POST /v1/messages HTTP/1.1\\r\\nHost: egress\\r\\nx-api-key: %s\\r\\ncontent-type: application/json\\r\\ncontent-length: ${body.length}\\r\\nconnection: close\\r\\n\\r\\n%s' "$TOKEN" '${body}' >&3; timeout 10 cat <&3`;
  return docker("run", "--rm", "--network", network, "--env", `TOKEN=${token}`, "--entrypoint", "bash", AGENT_IMAGE, "-c", script);
}

describe('an egress proxy reached through the engine (control "engine")', () => {
  it("has no bind mount, and its secret is only what went on its stdin: in no variable, argv, inspect or log line", () => {
    const proxy = gateway as EgressGateway;
    const inspect = docker("inspect", proxy.container);
    const [container] = JSON.parse(inspect) as Array<{ Mounts: unknown[]; HostConfig: { Binds: unknown; Mounts?: unknown }; Config: { Env: string[] } }>;
    expect(container?.Mounts).toEqual([]);
    expect(container?.HostConfig.Binds ?? null).toBeNull();
    expect(container?.Config.Env).toContain("AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN=1");
    const secret = written.trim();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(written).toBe(`${secret}\n`);
    expect(inspect).not.toContain(secret);
    expect(docker("exec", proxy.container, "sh", "-c", "cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'")).not.toContain(secret);
    expect(log.lines.join("\n")).not.toContain(secret);
  });

  it("registers a Run, meters its model call and revokes it, over the bridge; its token is dead after", async () => {
    const proxy = gateway as EgressGateway;
    const { token } = await proxy.register({ runId: "bridged", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    expect(modelCall(token)).toMatch(/^HTTP\/1\.1 200/);
    expect(await proxy.meter("bridged")).toMatchObject({ runId: "bridged", turns: 1 });
    expect(await proxy.revoke("bridged")).toMatchObject({ runId: "bridged", turns: 1 });
    expect(await proxy.meter("bridged")).toBeUndefined();
    expect(modelCall(token)).toMatch(/^HTTP\/1\.1 401/);
    // A bridge serves requests while they come, and is gone once idle: then only the proxy's own run there.
    expect(docker("top", proxy.container)).toContain("bridge.js");
    await new Promise((resolve) => setTimeout(resolve, CALLER_CONNECTION_IDLE_MS + 1_500));
    expect(docker("top", proxy.container)).not.toContain("bridge.js");
  });

  it("delivers a breach on the event stream it holds open through the engine", async () => {
    const proxy = gateway as EgressGateway;
    const breaches: EgressBreach[] = [];
    const stop = proxy.onBreach((breach) => breaches.push(breach));
    await proxy.eventsOpen();
    const { token } = await proxy.register({ runId: "spender", provider: "anthropic", credential: { kind: "api_key", value: KEY }, budget: { maxTokens: 5 } });
    modelCall(token);
    const deadline = Date.now() + 15_000;
    while (breaches.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    await proxy.revoke("spender");
    expect(breaches).toEqual([expect.objectContaining({ runId: "spender", cap: "maxTokens", limit: 5 })]);
  });

  it("stays up when this process starts a second proxy on the same engine", async () => {
    const second = await startEgressGateway({ control: "engine", networks: [network], logger: log.logger });
    try {
      await expect((gateway as EgressGateway).meter("any")).resolves.toBeUndefined();
    } finally {
      await second.close();
    }
  });

  it("says which proxy cannot be reached, and what to do, without the secret, once its container is gone", async () => {
    const proxy = gateway as EgressGateway;
    docker("rm", "--force", proxy.container);
    const attempt = proxy.meter("any");
    await expect(attempt).rejects.toThrow(`the control bridge (an exec) in the egress proxy's container "${proxy.container}"`);
    await expect(attempt).rejects.toThrow(/No such container.*; is the proxy's container still running\?/);
    await expect(attempt).rejects.not.toThrow(written.trim());
  });

  it("leaves nothing once closed", async () => {
    const proxy = gateway as EgressGateway;
    await proxy.close();
    gateway = undefined;
    expect(docker("ps", "--all", "--quiet", "--filter", `name=${proxy.container}`)).toBe("");
  });
});
