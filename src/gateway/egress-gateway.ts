// The egress proxy as the runtime runs it: its own long-lived container, locked down like an agent
// (non-root, no capabilities, read-only root, no engine socket), on the networks that reach the
// providers, driven over a control socket in the Staging Directory with a secret made here.
// Each `model` Run's network is joined to it for that Run only (run-network.ts), under "egress".
// `connectEgressGateway` speaks to one the Operator runs instead (the compose service).

import { randomBytes } from "node:crypto";
import { chown, lstat, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type Docker from "dockerode";
import { pino, type Logger } from "pino";
import { jsonLines } from "../plan/index.js";
import { composeSpec, OWNER_LABEL, resolveAgentUser, validateAgentContainer, type AgentContainer } from "../container/index.js";
import { createDockerEngine, engineMessage, describeEngineError, type Engine } from "../engine/index.js";
import { createEgressControlClient, DEFAULT_EGRESS_PORT, EGRESS_VARIABLES, type EgressCli, type EgressControlClient } from "../egress/index.js";
import {
  newRunId,
  orphanedBecause,
  ownershipFromLabels,
  ownershipLabels,
  newRuntimeSessionId,
  thisProcess,
  bounded,
  limits,
  RunRequestError,
} from "../runtime/index.js";
import { findDeploymentEgress } from "./deployment-egress.js";

/** The image that holds this package's proxy program (dist/egress/main.js). */
export const DEFAULT_EGRESS_IMAGE = "agentcage-orchestrator:latest";
/** What builds DEFAULT_EGRESS_IMAGE from an installed package (in the repository, `npm run image:orchestrator` does too). */
export const BUILD_EGRESS_IMAGE = "npx agentcage-build-images orchestrator";
/** Owner label of runtime-started proxies: their own, so no agent sweep takes one for a Run. */
export const EGRESS_OWNER = "agentcage-egress";
/** The host name every Run's agent reaches the proxy by. */
export const EGRESS_ALIAS = "egress";
const CONTROL_TARGET = "/run/agentcage";
const SECRET_FILE = "control-secret";
const SOCKET_FILE = "egress.sock";
const STARTUP_TIMEOUT_MS = 20_000;
/** How long connectEgressGateway waits for an Operator's proxy that is still starting. */
const CONNECT_WAIT_MS = 30_000;
/** The proxy is a small Node server: bounds below an agent's, with room for the request bodies it may hold (MAX_HELD_REQUEST_BYTES). */
const PROXY_LIMITS = { memoryBytes: 512 * 1024 * 1024, pids: 64, tmpfsBytes: 16 * 1024 * 1024, stopGraceSeconds: 5 };

export type EgressGateway = EgressControlClient & {
  /** The proxy's container, which each Run's network is joined to. */
  readonly container: string;
  /** The host name the agent reaches it by on its Run's network. */
  readonly alias: string;
  /** The port it serves agents on. */
  readonly port: number;
  /**
   * The model a codex request that names none runs with behind this proxy, when its upstream is
   * not the provider's own (the stand-in serves its tools to the model its fixtures were captured
   * with only); absent: codex's own default.
   */
  readonly codexModel?: string;
  /** Stops the proxy (a runtime-started one) and removes its control directory; an Operator's is left running. */
  readonly close: () => Promise<void>;
};

export type EgressGatewayOptions = {
  /**
   * A directory this process and the engine's host see at the same path (the Staging Directory):
   * the proxy's control socket and secret live in a directory of their own under it.
   */
  readonly runtimeDir: string;
  /** Default DEFAULT_EGRESS_IMAGE (built by BUILD_EGRESS_IMAGE, `npx agentcage-build-images orchestrator`). */
  readonly image?: string;
  /** The networks through which the proxy reaches the providers; default ["bridge"]. Never the agents'. */
  readonly networks?: readonly string[];
  /** Each CLI's provider; default the real ones (api.anthropic.com, api.openai.com). */
  readonly upstreams?: Readonly<Partial<Record<EgressCli, string>>>;
  /** uid[:gid] of the proxy; default this process's, or 10002:10002 when that is root. */
  readonly user?: string;
  /** The proxy's own log level (its lines go to `logger`); default "info". */
  readonly logLevel?: string;
  /**
   * Put the project's stand-in model behind the proxy, inside its container on loopback, instead of
   * the providers (no key, no internet needed: for trying things and for tests). Default false.
   */
  readonly standIn?: boolean;
  /** The model a codex request that names none runs with behind it (EgressGateway.codexModel); default codex's own. */
  readonly codexModel?: string;
  readonly engine?: Engine;
  readonly docker?: Docker;
  readonly logger?: Logger;
};

/** Starts the proxy container and resolves once its control socket answers. Throws (RunRequestError) with what to do when it cannot. */
export async function startEgressGateway(options: EgressGatewayOptions): Promise<EgressGateway> {
  await checkRuntimeDir(options.runtimeDir);
  const engine = options.engine ?? createDockerEngine(options.docker);
  const image = options.image ?? DEFAULT_EGRESS_IMAGE;
  const id = `egress-${newRunId()}`;
  const session = newRuntimeSessionId();
  await sweepGateways(engine, session, options.logger);
  const directoryName = `.${id}`;
  const directory = join(options.runtimeDir, directoryName);
  const user = resolveAgentUser(options.user);
  const secret = randomBytes(32).toString("base64url");
  await mkdir(directory, { mode: 0o700 });
  const cleanup = (): Promise<void> => rm(directory, { recursive: true, force: true });
  try {
    await writeFile(join(directory, SECRET_FILE), secret, { mode: 0o400 });
    if (process.getuid?.() === 0) {
      // Root here, another uid there: the proxy must own what it reads and where it listens.
      const [uid = Number.NaN, gid = uid] = user.split(":").map(Number);
      if (Number.isInteger(uid) && Number.isInteger(gid)) {
        for (const path of [directory, join(directory, SECRET_FILE)]) await chown(path, uid, gid);
      }
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  const declaration: AgentContainer = {
    image,
    // The image's egress entry: the stand-in behind the proxy when asked, then the proxy itself.
    entrypoint: ["/usr/local/bin/agentcage-egress"],
    mounts: { runtimeDir: options.runtimeDir, entries: [{ path: directoryName, agentPath: CONTROL_TARGET }] },
    networks: options.networks ?? ["bridge"],
    publicEnv: {
      [EGRESS_VARIABLES.host]: "0.0.0.0",
      [EGRESS_VARIABLES.port]: String(DEFAULT_EGRESS_PORT),
      [EGRESS_VARIABLES.controlSocket]: `${CONTROL_TARGET}/${SOCKET_FILE}`,
      [EGRESS_VARIABLES.controlSecretFile]: `${CONTROL_TARGET}/${SECRET_FILE}`,
      [EGRESS_VARIABLES.logLevel]: options.logLevel ?? "info",
      AGENTCAGE_STAND_IN: options.standIn === true ? "1" : "0",
      ...(options.upstreams?.claude === undefined ? {} : { [EGRESS_VARIABLES.claudeUpstream]: options.upstreams.claude }),
      ...(options.upstreams?.codex === undefined ? {} : { [EGRESS_VARIABLES.codexUpstream]: options.upstreams.codex }),
    },
    user,
    owner: EGRESS_OWNER,
    limits: PROXY_LIMITS,
  };
  const spec = composeSpec(validateAgentContainer(declaration), {
    runId: id,
    planArgs: [],
    // Lives as long as this process: only its death makes the proxy an orphan.
    labels: ownershipLabels({ session, ...thisProcess(), deadline: String(Number.MAX_SAFE_INTEGER) }),
  });
  const stopProxy = async (): Promise<void> => {
    await bounded(engine.remove(spec.name), limits.ENGINE_CLEANUP_TIMEOUT_MS, "remove the egress proxy").catch(() => undefined);
  };
  const logger = options.logger ?? pino({ name: "agentcage-egress" }, pino.destination(2));
  try {
    const containerId = await engine.create(spec);
    // Its one line per request goes to this process's log: a container's own log is off (as every Run's).
    const streams = await engine.attach(containerId);
    streams.stdin.end();
    void forwardLog(streams.stdout, logger);
    streams.stderr.on("data", (chunk: Buffer) => logger.warn({ stderr: chunk.toString("utf8").trim() }, "the egress proxy wrote to stderr"));
    await engine.start(containerId);
  } catch (error) {
    await stopProxy();
    await cleanup();
    throw new RunRequestError(
      `the egress proxy could not start: ${describeEngineError("create", error, image)}${/no such image|not on this engine/i.test(engineMessage(error)) ? `; ${missingImageHint(image)}` : ""}`,
    );
  }
  const socketPath = join(directory, SOCKET_FILE);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (
    !(await lstat(socketPath).then(
      (s) => s.isSocket(),
      () => false,
    ))
  ) {
    const state = await engine.inspect(spec.name).catch(() => undefined);
    if (state === undefined || !state.running || Date.now() > deadline) {
      await stopProxy();
      await cleanup();
      throw new RunRequestError(
        `the egress proxy ${state?.running === true ? `did not listen within ${STARTUP_TIMEOUT_MS} ms` : `exited (code ${state?.exitCode ?? "unknown"})`}; see \`docker logs\` of a proxy started by hand, or the image ${JSON.stringify(image)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const client = createEgressControlClient({ socketPath, secret });
  return {
    ...client,
    container: spec.name,
    alias: EGRESS_ALIAS,
    port: DEFAULT_EGRESS_PORT,
    ...(options.codexModel === undefined ? {} : { codexModel: options.codexModel }),
    close: async () => {
      client.close();
      await stopProxy();
      await cleanup();
    },
  };
}

/** What to do when the proxy's image is not on the engine: agentcage's own is built by its package's builder. */
function missingImageHint(image: string): string {
  return image === DEFAULT_EGRESS_IMAGE
    ? `build it with \`${BUILD_EGRESS_IMAGE}\` (in agentcage's repository: \`npm run image:orchestrator\`)`
    : `\`${BUILD_EGRESS_IMAGE}\` builds agentcage's own, ${DEFAULT_EGRESS_IMAGE}`;
}

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
    close: async () => client.close(),
  };
}

/** Refuses a runtimeDir the proxy's control directory cannot be made in, naming it and saying what to pass. */
async function checkRuntimeDir(runtimeDir: unknown): Promise<void> {
  if (typeof runtimeDir !== "string" || !isAbsolute(runtimeDir)) {
    throw new RunRequestError(
      `runtimeDir ${JSON.stringify(runtimeDir)} is not an absolute path; pass the Staging Directory, a directory this process and the engine's host see at the same absolute path`,
    );
  }
  const found = await stat(runtimeDir).catch((error: NodeJS.ErrnoException) => error.code ?? "error");
  if (typeof found === "string" || !found.isDirectory()) {
    throw new RunRequestError(
      `runtimeDir ${JSON.stringify(runtimeDir)} is ${typeof found === "string" ? `not there (${found})` : "not a directory"}; make it first (install -d -m 0700 ${runtimeDir}), or pass the Staging Directory`,
    );
  }
}

/** The proxy's JSON lines as this process's log lines, at their own level. */
async function forwardLog(stdout: AsyncIterable<Uint8Array>, logger: Logger): Promise<void> {
  const levels: Record<number, "trace" | "debug" | "info" | "warn" | "error" | "fatal"> = {
    10: "trace",
    20: "debug",
    30: "info",
    40: "warn",
    50: "error",
    60: "fatal",
  };
  try {
    for await (const line of jsonLines(stdout)) {
      if (line.kind !== "json") continue;
      const { level, msg, time: _time, pid: _pid, hostname: _hostname, name: _name, ...fields } = line.value as Record<string, unknown>;
      logger[levels[Number(level)] ?? "info"]({ egress: fields }, typeof msg === "string" ? msg : "egress proxy");
    }
  } catch {
    // The proxy went away (closed): nothing more to forward.
  }
}

/** Removes proxies a dead process started (their owner is EGRESS_OWNER). */
async function sweepGateways(engine: Engine, session: string, logger: Logger | undefined): Promise<void> {
  const context = { session, me: thisProcess(), isLive: () => false, now: Date.now() };
  const listed = await engine.listByLabel(`${OWNER_LABEL}=${EGRESS_OWNER}`).catch(() => []);
  for (const container of listed) {
    const why = orphanedBecause("", ownershipFromLabels(container.labels), context);
    if (why === undefined) continue;
    await engine.remove(container.id).then(
      () => logger?.info({ container: container.id, why }, "removed an egress proxy left behind"),
      () => undefined,
    );
  }
}
