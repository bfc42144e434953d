// createAgentContainerRuntime's one argument, refused at construction where the Operator wrote it:
// its shape, the declaration (validated, and composed once with a placeholder plan), the plan
// function, the concurrency, the engine, the write bound and how a Run's files reach the engine.
// Invariant: what passes here can be run; a declaration that cannot mean anything throws here, never in a Run.

import type Docker from "dockerode";
import { runAddressesOf, type RunAddresses } from "./network/index.js";
import { AgentContainerError, DEFAULT_TIMEOUT_SECONDS, validateAgentContainer, type AgentContainer, type ValidatedContainer } from "../container/index.js";
import type { Engine } from "../engine/index.js";
import type { ReaderVerdict, RunPlanFunction } from "../plan/index.js";
import { canBoundWrites } from "../staging/index.js";
import { composeRun, containerDeadlineSeconds } from "./run/index.js";
import { DEFAULT_MAX_CONCURRENT_RUNS, MAX_CONCURRENT_RUNS } from "./limits.js";
import { describeValue } from "./misuse.js";
import { checkPoolOptions, type PoolOptions } from "./pool/index.js";
import type { Degradations } from "./degradations.js";
import type { EngineSet } from "./engines/index.js";
import type { RunFiles, WriteBound } from "./run/index.js";
import type { KubernetesBackend } from "./pods/index.js";
import type { RunBackend } from "./run-backend.js";
import { chooseRunBackend, isRunBackend } from "./run-backends.js";

/** createAgentContainerRuntime's one argument: the Agent Container, the Run Plan function, and how Runs reach an engine. Refused at construction. */
export type RuntimeOptions<R extends ReaderVerdict = ReaderVerdict, Q = undefined> = {
  readonly container: AgentContainer;
  /** Answers each Run with its plan; called once per Run and once per commandFor. */
  readonly run: RunPlanFunction<R, Q>;
  /** Runs at once; more queue (see `queuedMs`). Default: DEFAULT_MAX_CONCURRENT_RUNS, one per core within the machine's memory. */
  readonly maxConcurrentRuns?: number;
  /** The Docker connection the default engine uses; default: dockerode's own (DOCKER_HOST, else the local socket). */
  readonly docker?: Docker;
  /** The container engine; default: Docker through `docker`. Give one or the other, not both. */
  readonly engine?: Engine;
  /**
   * Several engines instead of one (createEngineSet): each Run is placed on one that answers and
   * holds the image, with the most free slots, and a drained engine's Runs end `unavailable`
   * (engine-set.ts). Not with `engine`, `docker` or `pool`; a Run's own `network` is made on the
   * engine it is placed on. Default: the one engine. maxConcurrentRuns then defaults to the sum of the engines' slots.
   */
  readonly engines?: EngineSet;
  /**
   * How what an agent writes to out/ (or a writable work/, staging.writableBytes) and to a session
   * store's working copy is bounded: "mount", a tmpfs this process mounts (it must be root on the
   * engine's host, allowed to mount); "volume", in-memory volumes of the Run's own that the engine
   * mounts, filled with what was staged and copied back after the Run (a non-root orchestrator).
   * Default "mount" where this process can mount, else "volume".
   */
  readonly writeBound?: WriteBound;
  /**
   * How a staged Run's files reach its container: "disk", bind mounts of its Run directory, so the
   * engine must share this host's disk; "engine", through the engine alone: its inputs put into a
   * volume of its own (mounted read-only) before it starts, its out/ (or writable work/) and session
   * store in volumes of its own read back through the engine's archive under the Harvest's rules
   * (writeBound "volume"), and no bind mount at all. Not with `container.mounts` (binds of this
   * disk), secret files, or a pool of a staged declaration. Default "disk", the faster where it works.
   */
  readonly runFiles?: RunFiles;
  /**
   * The IPv4 range a Run's own network (a network policy's, or `network` of run()) takes a /28 of,
   * instead of the engine's default address pools (about 30 networks at once); checked at
   * construction against this host's routes. Default DEFAULT_RUN_NETWORK_RANGE (10.213.0.0/16: 4,096 networks).
   */
  readonly runNetworkRange?: string;
  /**
   * A warm pool: `size` containers created and started ahead, each handed to exactly one Run at its
   * claim (its prompt, argv and environment arrive then, over its stdin), replaced after
   * `maxIdleSeconds` unused. A Run the pool cannot serve (secret files, a session store, a writable
   * work/, another network, none ready) starts cold; `outcome.warm` says which. Needs a staged
   * declaration's write bound to be "mount". Call close() when done. Default: none, every Run cold.
   */
  readonly pool?: PoolOptions;
  /**
   * Runs each Run as a Pod on a Kubernetes cluster instead of a Docker container (kube-backend.ts):
   * its inputs unpacked in the Pod before the agent starts and its out/ (or writable work/) read back
   * through the API under the Harvest's rules, so the nodes share no disk with this process (runFiles
   * "engine"). Not with `engine`, `engines`, `docker`, `pool`, runFiles "disk", `container.mounts`
   * or `container.networks`. Not yet run against a live cluster. Default: none, Docker.
   */
  readonly kubernetes?: KubernetesBackend;
  /**
   * The Run Backend, when the caller chose it already (chooseRunBackend over the same options, as
   * createAgentRunner does to ask it what it refuses). Not with `engine`, `engines`, `docker` or
   * `kubernetes`, which it was chosen from. Default: chosen from those. Internal: left out of the
   * package's types (stripInternal), since a backend is the project's seam, not a user's.
   * @internal
   */
  readonly backend?: RunBackend;
  /**
   * Where the runtime says what makes it less than it says while it goes on (a pool that cannot
   * fill, a Run network range that clashes, an engine drained), shared by several runtimes of one
   * service so each is said once. Default: a board of this runtime's own (runtime.degradations()).
   */
  readonly degradations?: Degradations;
};

/** What construction decided from the options: the validated declaration, the concurrency, the write bound, the Run networks' addresses. */
export type CheckedRuntimeOptions = {
  readonly container: ValidatedContainer;
  readonly concurrency: number;
  readonly writeBound: WriteBound;
  readonly runFiles: RunFiles;
  readonly addresses: RunAddresses;
  /** Where its Runs' containers live, chosen once here. */
  readonly backend: RunBackend;
};

const RUNTIME_OPTION_NAMES = [
  "container",
  "run",
  "maxConcurrentRuns",
  "docker",
  "engine",
  "engines",
  "writeBound",
  "runFiles",
  "runNetworkRange",
  "pool",
  "kubernetes",
  "backend",
  "degradations",
];
const WRITE_BOUNDS: readonly WriteBound[] = ["mount", "volume"];
export const RUN_FILES: readonly RunFiles[] = ["disk", "engine"];

/** Throws an AgentContainerError, one sentence saying what to write instead, at the first option that cannot mean anything. */
export function checkRuntimeOptions<R extends ReaderVerdict, Q>(options: RuntimeOptions<R, Q>, extra: readonly unknown[]): CheckedRuntimeOptions {
  checkCallShape(options, extra);
  const container = validateAgentContainer(options.container);
  const backend = backendOf(options);
  const concurrency = checkPlanAndEngine(options, backend);
  composeOnce(container);
  backend.refuseOptions(options, container);
  // A backend may take its Runs' files one way only (on Kubernetes through the API: no node shares this host's disk).
  const runFiles = checkRunFiles(backend.runFiles ?? options.runFiles, container, options.writeBound);
  // Through the engine, what the agent writes can only be bounded by volumes of the Run's own.
  const writeBound = runFiles === "engine" ? "volume" : chooseWriteBound(options.writeBound);
  if (options.pool !== undefined) checkPool(options.pool, container, writeBound, runFiles);
  return {
    container,
    concurrency,
    writeBound,
    runFiles,
    addresses: runAddressesOf(options.runNetworkRange),
    backend,
  };
}

/** The backend the caller chose, or the one the options name, chosen now. */
function backendOf<R extends ReaderVerdict, Q>(options: RuntimeOptions<R, Q>): RunBackend {
  if (options.backend === undefined) return chooseRunBackend(options);
  if (!isRunBackend(options.backend)) {
    throw new AgentContainerError(`backend ${describeValue(options.backend)} is not a Run Backend; pass chooseRunBackend({ ... }), or leave it out`);
  }
  const clash = (["engine", "engines", "docker", "kubernetes"] as const).find((name) => options[name] !== undefined);
  if (clash !== undefined) throw new AgentContainerError(`backend is given with ${clash}, which it is chosen from; leave ${clash} out, or backend`);
  return options.backend;
}

/** runFiles as asked, default "disk"; "engine" refused with what would bind this host's disk anyway. */
function checkRunFiles(asked: RunFiles | undefined, container: ValidatedContainer, writeBound: WriteBound | undefined): RunFiles {
  if (asked !== undefined && !RUN_FILES.includes(asked)) {
    throw new AgentContainerError(
      `runFiles ${describeValue(asked)} is not one of ${RUN_FILES.join(", ")}; pass "engine" to have a Run's files go through the engine, or leave it out to bind them from this host's disk`,
    );
  }
  if (asked !== "engine") return "disk";
  if (writeBound === "mount") {
    throw new AgentContainerError(
      'runFiles "engine" bounds what the agent writes with volumes of its own, and writeBound "mount" asks for a tmpfs on this host\'s disk; leave writeBound out, or pass runFiles "disk"',
    );
  }
  if ((container.mounts?.entries.length ?? 0) > 0) {
    throw new AgentContainerError(
      `runFiles "engine" mounts nothing of this host's disk, and container.mounts binds ${container.mounts?.entries.length} entr${container.mounts?.entries.length === 1 ? "y" : "ies"} of it; leave container.mounts out (give files as a Run's inputs), or pass runFiles "disk"`,
    );
  }
  return "engine";
}

function checkPool(pool: PoolOptions, container: ValidatedContainer, writeBound: WriteBound, runFiles: RunFiles): void {
  const refusal = checkPoolOptions(pool);
  if (refusal !== undefined) throw new AgentContainerError(refusal);
  if (container.staging !== undefined && runFiles === "engine") {
    // A member is made before its Run is known: its work/ is a directory of this disk, bound then and filled at the claim.
    throw new AgentContainerError(
      "pool with a staged declaration needs runFiles \"disk\" (a member's work/ is bound from this host's disk before its Run's inputs are known); leave pool out, or runFiles out",
    );
  }
  if (container.staging !== undefined && writeBound !== "mount") {
    throw new AgentContainerError(
      "pool needs writeBound \"mount\" with a staged declaration (a member's out/ is bounded when it is made, by a tmpfs this process mounts); run as root on the engine's host, or leave pool out",
    );
  }
}

function checkCallShape<R extends ReaderVerdict, Q>(options: RuntimeOptions<R, Q>, extra: readonly unknown[]): void {
  if (extra.length > 0) throw new AgentContainerError(`createAgentContainerRuntime takes one argument, { container, run }; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new AgentContainerError(
      `createAgentContainerRuntime's options ${describeValue(options)} is not an object; pass { container: { image }, run: (prompt) => plan }`,
    );
  }
  const unknown = Object.keys(options).filter((key) => !RUNTIME_OPTION_NAMES.includes(key));
  if (unknown.length > 0)
    throw new AgentContainerError(
      `createAgentContainerRuntime option ${JSON.stringify(unknown[0])} is not one it knows; use ${RUNTIME_OPTION_NAMES.join(", ")}`,
    );
  if (typeof options.container !== "object" || options.container === null) {
    throw new AgentContainerError(`container ${describeValue(options.container)} is not an Agent Container; pass { image: "..." } at the least`);
  }
}

/** The plan function and the concurrency (returned): by default, as many Runs as the backend holds, when it says. */
function checkPlanAndEngine<R extends ReaderVerdict, Q>(options: RuntimeOptions<R, Q>, backend: RunBackend): number {
  if (typeof options.run !== "function") {
    throw new AgentContainerError(`run is ${JSON.stringify(typeof options.run)}, not a function; pass (prompt) => RunPlan`);
  }
  const concurrency = options.maxConcurrentRuns ?? (backend.slots === undefined ? DEFAULT_MAX_CONCURRENT_RUNS : Math.min(MAX_CONCURRENT_RUNS, backend.slots));
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENT_RUNS) {
    throw new AgentContainerError(`maxConcurrentRuns ${JSON.stringify(concurrency)} is out of range; write a whole number from 1 to ${MAX_CONCURRENT_RUNS}`);
  }
  const board = options.degradations as Partial<Degradations> | undefined;
  if (board !== undefined && (typeof board !== "object" || board === null || typeof board.raise !== "function" || typeof board.list !== "function")) {
    throw new AgentContainerError(`degradations ${describeValue(board)} is not a board of degradations; pass createDegradations(logger), or leave it out`);
  }
  return concurrency;
}

/** Composes once now, with a placeholder plan, so a declaration that cannot render throws here. */
function composeOnce(container: ValidatedContainer): void {
  try {
    composeRun(container, {
      runId: "0000000000000000",
      planArgs: [],
      deadlineSeconds: containerDeadlineSeconds((container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
    });
  } catch (error) {
    throw new AgentContainerError(`Agent Container is invalid: ${(error as Error).message}`, { cause: error });
  }
}

/** The write bound asked for, if this process can keep it; default "mount" where it can mount, else "volume". */
function chooseWriteBound(asked: WriteBound | undefined): WriteBound {
  if (asked !== undefined && !WRITE_BOUNDS.includes(asked)) {
    throw new AgentContainerError(`writeBound ${describeValue(asked)} is not one of ${WRITE_BOUNDS.join(", ")}; leave it out to have the runtime choose`);
  }
  if (asked === "mount" && !canBoundWrites()) {
    throw new AgentContainerError(
      'writeBound "mount" needs this process to mount a tmpfs (root on the engine\'s host, allowed to mount), and it cannot; pass "volume", or leave it out',
    );
  }
  return asked ?? (canBoundWrites() ? "mount" : "volume");
}
