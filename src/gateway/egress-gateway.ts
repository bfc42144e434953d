// The egress proxy as the runtime runs it: its own long-lived container, locked down like an agent
// (non-root, no capabilities, read-only root, no engine socket), on the networks that reach the
// providers, driven with a secret made here over a control socket: in the Staging Directory (control
// "disk"), or on its own tmpfs, reached by an exec through the engine (control "engine", no mount).
// Each `model` Run's network is joined to it for that Run only (run-network.ts), under "egress".
// connect-gateway.ts speaks to one the Operator runs instead (the compose service).

import { randomBytes } from "node:crypto";
import { chown, lstat, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type Docker from "dockerode";
import { pino, type Logger } from "pino";
import { jsonLines } from "../plan/index.js";
import { composeSpec, OWNER_LABEL, resolveAgentUser, validateAgentContainer, type AgentContainer } from "../container/index.js";
import { createDockerEngine, engineMessage, describeEngineError, type Engine } from "../engine/index.js";
import { createEgressControlClient, DEFAULT_EGRESS_PORT, EGRESS_VARIABLES, type EgressControlClient } from "../egress/index.js";
import type { ModelProvider } from "../plan/index.js";
import { newRunId, ownershipLabels, newRuntimeSessionId, thisProcess, bounded, limits, RunRequestError } from "../runtime/index.js";
import { untilProxyListens } from "./proxy-start.js";
import { bridgeConnector, bridgePlace, ENGINE_CONTROL_SOCKET } from "./engine-control.js";
import { orphanedProxyBecause, PROXY_LIMITS, proxyEnvironment, READINESS_PROBE } from "./proxy-parts.js";

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

/**
 * The egress proxy beside the Runs, started by startEgressGateway: a `model` or `allowlist` Run reaches
 * its provider only through it, holding a per-Run token instead of the real credential.
 */
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
  /**
   * Whether the proxy is shown gone now: why, said after "it" ("is not running (its container
   * exited, code 137)", "refuses connections on its control endpoint (ECONNREFUSED)"), or undefined
   * when it lives or cannot be told. Slow is not gone: a proxy that is paused or busy lives.
   */
  readonly gone: () => Promise<string | undefined>;
  /** Stops the proxy (a runtime-started one) and removes its control directory; an Operator's is left running. */
  readonly close: () => Promise<void>;
};

/** How the runtime reaches a proxy it started: through the Staging Directory's disk, or through the engine. */
export type EgressControlPath = "disk" | "engine";

/** What startEgressGateway needs: where its control lives, and the image, networks and upstreams of the proxy. */
export type EgressGatewayOptions = {
  /**
   * Under control "disk": a directory this process and the engine's host see at the same path (the
   * Staging Directory): the proxy's control socket and secret live in a directory of their own under it.
   * Not used under control "engine".
   */
  readonly runtimeDir?: string;
  /**
   * "disk" (the default: the faster one): the control socket and secret in a directory under
   * runtimeDir, bind-mounted into the proxy. "engine": no mount; the secret goes on the proxy's stdin
   * over the engine's attach and each control request is an exec in its container (bridge.js), for an
   * engine that does not see this process's disk (tcp://, ssh://; Runs with runFiles "engine").
   */
  readonly control?: EgressControlPath;
  /** How messages name the proxy's engine, one of several (startEgressGateways); default: none. */
  readonly engineName?: string;
  /** Default DEFAULT_EGRESS_IMAGE (built by BUILD_EGRESS_IMAGE, `npx agentcage-build-images orchestrator`). */
  readonly image?: string;
  /** The networks through which the proxy reaches the providers; default ["bridge"]. Never the agents'. */
  readonly networks?: readonly string[];
  /** Each model provider's upstream; default the real ones (api.anthropic.com, api.openai.com). */
  readonly upstreams?: Readonly<Partial<Record<ModelProvider, string>>>;
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
  /** Ends the start when aborted (a Ctrl-C, a service's stop): what it made is removed and the start rejects. Default: none. */
  readonly signal?: AbortSignal;
  /** Told every few seconds while the start waits for the proxy, whose container runs, to listen: for how long so far. Must not throw. Default: none. */
  readonly onWaiting?: (waitedMs: number) => void;
  readonly engine?: Engine;
  readonly docker?: Docker;
  /** Where the proxy's lines (one per request) go; default: nowhere (a silent pino). */
  readonly logger?: Logger;
};

/**
 * Starts the proxy container and resolves once its control socket answers, however long that takes
 * while its container runs. Throws (RunRequestError) with what to do when it cannot, when its
 * container is shown gone first, or when `signal` aborts; what it made is removed then.
 */
export async function startEgressGateway(options: EgressGatewayOptions): Promise<EgressGateway> {
  const throughEngine = checkControl(options.control) === "engine";
  if (!throughEngine) await checkRuntimeDir(options.runtimeDir);
  if (options.signal?.aborted === true) throw new RunRequestError(`the start of ${proxyNamed(options)} was cancelled before its container was made`);
  const engine = options.engine ?? createDockerEngine(options.docker);
  const image = options.image ?? DEFAULT_EGRESS_IMAGE;
  const id = `egress-${newRunId()}`;
  const session = newRuntimeSessionId();
  await sweepGateways(engine, session, options.logger);
  const user = resolveAgentUser(options.user);
  const secret = randomBytes(32).toString("base64url");
  const disk = throughEngine ? undefined : await controlDirectory(options.runtimeDir as string, id, user, secret);
  const cleanup = async (): Promise<void> => disk?.remove();
  const declaration: AgentContainer = {
    image,
    // The image's egress entry: the stand-in behind the proxy when asked, then the proxy itself.
    entrypoint: ["/usr/local/bin/agentcage-egress"],
    ...(disk === undefined ? {} : { mounts: { runtimeDir: options.runtimeDir as string, entries: [{ path: disk.name, agentPath: CONTROL_TARGET }] } }),
    networks: options.networks ?? ["bridge"],
    publicEnv: proxyEnvironment(
      options,
      DEFAULT_EGRESS_PORT,
      disk === undefined
        ? // The secret comes on stdin, written over the attach below: in no variable, argv or inspect.
          { [EGRESS_VARIABLES.controlSocket]: ENGINE_CONTROL_SOCKET, [EGRESS_VARIABLES.controlSecretStdin]: "1" }
        : { [EGRESS_VARIABLES.controlSocket]: `${CONTROL_TARGET}/${SOCKET_FILE}`, [EGRESS_VARIABLES.controlSecretFile]: `${CONTROL_TARGET}/${SECRET_FILE}` },
    ),
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
  const logger = options.logger ?? pino({ level: "silent" });
  let outputEnded: Promise<unknown> | undefined;
  try {
    const containerId = await engine.create(spec);
    // Its one line per request goes to this process's log: a container's own log is off (as every Run's).
    const streams = await engine.attach(containerId);
    if (disk !== undefined) streams.stdin.end();
    outputEnded = new Promise((resolve) => streams.stdout.once("close", resolve).once("end", resolve));
    void forwardLog(streams.stdout, logger);
    streams.stderr.on("data", (chunk: Buffer) => logger.warn({ stderr: chunk.toString("utf8").trim() }, "the egress proxy wrote to stderr"));
    await engine.start(containerId);
    if (disk === undefined) streams.stdin.end(`${secret}\n`);
  } catch (error) {
    await stopProxy();
    await cleanup();
    throw new RunRequestError(
      `the egress proxy could not start: ${describeEngineError("create", error, image)}${/no such image|not on this engine/i.test(engineMessage(error)) ? `; ${missingImageHint(image)}` : ""}`,
    );
  }
  const client =
    disk === undefined
      ? createEgressControlClient({ connect: bridgeConnector(engine, spec.name, image), where: bridgePlace(spec.name, options.engineName), secret })
      : createEgressControlClient({ socketPath: disk.socketPath, secret });
  const listening = disk === undefined ? () => client.meter(READINESS_PROBE).then(() => true) : () => isSocket(disk.socketPath);
  const started = await untilProxyListens({
    listening,
    gone: async () => {
      // An engine that does not answer now says nothing of the proxy: only its answer that the container is not running (or not there) does.
      const state = await engine.inspect(spec.name).catch(() => null);
      if (state === undefined) return "was removed";
      return state === null || state.running ? undefined : `exited (code ${state.exitCode})`;
    },
    ...(outputEnded === undefined ? {} : { ended: outputEnded }),
    pollMs: disk === undefined ? 200 : 50,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
  });
  if (started.kind !== "listening") {
    client.close();
    await stopProxy();
    await cleanup();
    if (started.kind === "cancelled") throw new RunRequestError(`the start of ${proxyNamed(options)} was cancelled (${started.why}); its container is removed`);
    throw new RunRequestError(
      `${proxyNamed(options)} ${started.why} before it listened${started.lastError === "" ? "" : ` (${started.lastError})`}; see \`docker logs\` of a proxy started by hand, or the image ${JSON.stringify(image)}${disk === undefined ? `, which must be as new as this runtime to be reached through the engine (its entry reads the secret on stdin, its bridge.js takes the control requests): ${missingImageHint(image)}` : ""}`,
    );
  }
  return {
    ...client,
    container: spec.name,
    alias: EGRESS_ALIAS,
    port: DEFAULT_EGRESS_PORT,
    ...(options.codexModel === undefined ? {} : { codexModel: options.codexModel }),
    gone: async () => (await client.refusal()) ?? (await containerGone(engine, spec.name)),
    close: async () => {
      client.close();
      await stopProxy();
      await cleanup();
    },
  };
}

/**
 * Whether the engine shows the proxy's container gone: removed, or not running (a paused one runs).
 * An engine that does not answer shows nothing: that is the engine's own liveness to tell.
 */
export async function containerGone(engine: Engine, container: string): Promise<string | undefined> {
  try {
    const state = await engine.inspect(container);
    if (state === undefined) return "is not running (its container is gone)";
    return state.running ? undefined : `is not running (its container exited, code ${state.exitCode})`;
  } catch {
    return undefined;
  }
}

/** "the egress proxy", or with the stand-in behind it "the egress proxy, with the stand-in model behind it,": the start's sentences name both. */
function proxyNamed(options: Pick<EgressGatewayOptions, "standIn">): string {
  return options.standIn === true ? "the egress proxy, with the stand-in model behind it," : "the egress proxy";
}

async function isSocket(path: string): Promise<boolean> {
  return lstat(path).then(
    (s) => s.isSocket(),
    () => false,
  );
}

/** control as given, default "disk"; anything else refused by name. */
function checkControl(control: unknown): EgressControlPath {
  if (control === undefined || control === "disk" || control === "engine") return control ?? "disk";
  throw new RunRequestError(
    `control ${JSON.stringify(control)} is not one of disk, engine; pass "engine" when the engine does not see this process's disk, or leave it out`,
  );
}

/** The proxy's control directory under runtimeDir (control "disk"), its secret written, both owned by the proxy's user. */
async function controlDirectory(
  runtimeDir: string,
  id: string,
  user: string,
  secret: string,
): Promise<{ readonly name: string; readonly socketPath: string; readonly remove: () => Promise<void> }> {
  const name = `.${id}`;
  const directory = join(runtimeDir, name);
  await mkdir(directory, { mode: 0o700 });
  const remove = (): Promise<void> => rm(directory, { recursive: true, force: true });
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
    await remove();
    throw error;
  }
  return { name, socketPath: join(directory, SOCKET_FILE), remove };
}

/** What to do when the proxy's image is not on the engine: agentcage's own is built by its package's builder. */
function missingImageHint(image: string): string {
  return image === DEFAULT_EGRESS_IMAGE
    ? `build it with \`${BUILD_EGRESS_IMAGE}\` (in agentcage's repository: \`npm run image:orchestrator\`)`
    : `\`${BUILD_EGRESS_IMAGE}\` builds agentcage's own, ${DEFAULT_EGRESS_IMAGE}`;
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

/** Removes proxies a dead process started (their owner is EGRESS_OWNER); this process's own are in use. */
async function sweepGateways(engine: Engine, session: string, logger: Logger | undefined): Promise<void> {
  const listed = await engine.listByLabel(`${OWNER_LABEL}=${EGRESS_OWNER}`).catch(() => []);
  for (const container of listed) {
    const why = orphanedProxyBecause(container.labels, session);
    if (why === undefined) continue;
    await engine.remove(container.id).then(
      () => logger?.info({ container: container.id, why }, "removed an egress proxy left behind"),
      () => undefined,
    );
  }
}
