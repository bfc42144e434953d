// A proxy the Operator runs (compose's egress service), connected to rather than started: found by
// this deployment's compose labels unless named, reached over the control socket and secret file
// the deployment shares with this process. What it returns is an EgressGateway like a started one's.

import { lstat, readFile } from "node:fs/promises";
import type Docker from "dockerode";
import { createDockerEngine, describeEngineError, type Engine } from "../engine/index.js";
import { createEgressControlClient, DEFAULT_EGRESS_PORT } from "../egress/index.js";
import { RunRequestError } from "../runtime/index.js";
import { findDeploymentEgress } from "./deployment-egress.js";
import { EGRESS_ALIAS, type EgressGateway } from "./egress-gateway.js";

/** How long connectEgressGateway waits for an Operator's proxy that is still starting. */
const CONNECT_WAIT_MS = 30_000;

export type EgressGatewayConnection = {
  /**
   * The proxy's container name or id (what each Run's network is joined to); default: this
   * deployment's own, found by the compose labels of this process's container (deployment-egress.ts).
   */
  readonly container?: string;
  /** Where to look for it when `container` is not given; default Docker through `docker`. */
  readonly engine?: Engine;
  readonly docker?: Docker;
  /** This process's container when `container` is not given; default its host name. */
  readonly self?: string;
  /** Its control socket, as this process sees it. */
  readonly socketPath: string;
  /** A file holding the control secret (a compose secret). */
  readonly secretFile: string;
  /** Default DEFAULT_EGRESS_PORT. */
  readonly port?: number;
  /** The model a codex request that names none runs with behind it (EgressGateway.codexModel); default codex's own. */
  readonly codexModel?: string;
};

/**
 * A proxy the Operator runs (the compose service): this process only registers Runs with it and
 * joins it to their networks. Waits up to CONNECT_WAIT_MS for a proxy that is still starting.
 */
export async function connectEgressGateway(connection: EgressGatewayConnection): Promise<EgressGateway> {
  if (connection.container !== undefined && (typeof connection.container !== "string" || connection.container.trim() === "")) {
    throw new RunRequestError(
      `the egress proxy's container ${JSON.stringify(connection.container)} is empty; name its container, or leave it out for this deployment's own`,
    );
  }
  const container =
    connection.container ??
    (await findDeploymentEgress(
      connection.engine ?? createDockerEngine(connection.docker),
      connection.self === undefined ? {} : { self: connection.self },
    ).catch((error: unknown) => {
      if (error instanceof RunRequestError) throw error;
      throw new RunRequestError(`this deployment's egress proxy could not be looked up: ${describeEngineError("inspect", error, "")}`);
    }));
  let secret = "";
  const deadline = Date.now() + CONNECT_WAIT_MS;
  for (;;) {
    try {
      secret = (await readFile(connection.secretFile, "utf8")).trim();
      if (secret !== "" && (await lstat(connection.socketPath)).isSocket()) break;
    } catch (error) {
      if (Date.now() > deadline) {
        const code = (error as NodeJS.ErrnoException).code ?? "error";
        throw new RunRequestError(
          `the egress proxy's ${secret === "" ? `control secret ${JSON.stringify(connection.secretFile)}` : `control socket ${JSON.stringify(connection.socketPath)}`} cannot be read (${code}) after ${CONNECT_WAIT_MS / 1000} s; is the proxy running, with its control directory shared with this process?`,
        );
      }
    }
    if (Date.now() > deadline)
      throw new RunRequestError(`the egress proxy's control secret ${JSON.stringify(connection.secretFile)} is empty; the proxy writes it when it starts`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const client = createEgressControlClient({ socketPath: connection.socketPath, secret });
  return {
    ...client,
    container,
    alias: EGRESS_ALIAS,
    port: connection.port ?? DEFAULT_EGRESS_PORT,
    ...(connection.codexModel === undefined ? {} : { codexModel: connection.codexModel }),
    // The Operator's proxy is no container of this process's to inspect: gone when its socket refuses.
    gone: client.refusal,
    close: async () => client.close(),
  };
}
