// What one Run carries from step to step: the caller's context, read-only, and the state the steps
// fill in as the Run's record, network and volumes are made and its writable places read back.
// The state is the only thing the steps share; cleanup reads it to undo exactly what was made.
// Invariant: every field of the state says what has happened, never what is meant to happen.

import type { Logger } from "pino";
import type { ComposedSpec, ValidatedContainer } from "../../container/index.js";
import type { Engine } from "../../engine/index.js";
import type { EndReason, Outcome, ReaderVerdict, RunPlan, RunPlanFunction, RunPrompt } from "../../plan/index.js";
import type { Masker } from "../../redact/index.js";
import type { RunInputs, SecretFile } from "../../staging/index.js";
import type { RunTrace } from "../../trace/index.js";
import { earlyOutcome, type ContainerFacts } from "../end-reason.js";
import type { CollectedVolume, RunVolumes } from "../volumes/index.js";
import type { Ownership } from "../ownership/index.js";
import type { Pool } from "../pool/index.js";
import type { RunAddresses } from "../network/index.js";
import type { RecordWriter } from "./record.js";
import type { RunOptions, SessionStoreOptions } from "./run-options.js";
import type { RunNetwork } from "../network/index.js";
import type { Staged } from "./stage.js";
import { createRunStop, type RunStop } from "../stop.js";

export type RunContext<R extends ReaderVerdict, Q> = {
  readonly runId: string;
  /** The Run's span, its steps' parent; absent, the steps make no spans. */
  readonly trace?: RunTrace;
  /** Who may end this Run and until when: on its container's labels and in its run.json. */
  readonly ownership: Ownership;
  readonly prompt: RunPrompt<Q>;
  readonly container: ValidatedContainer;
  readonly planFunction: RunPlanFunction<R, Q>;
  readonly engine: Engine;
  readonly logger: Logger;
  /** This Run's own masker: the declaration's secrets and the Run's. */
  readonly masker: Masker;
  /** When the Run got its slot (performance.now()). */
  readonly startedAt: number;
  readonly timeoutSeconds: number;
  readonly graceMs: number;
  readonly signal?: AbortSignal;
  readonly inputs?: RunInputs;
  readonly harvestTo?: string;
  readonly replaceHarvestTo: boolean;
  readonly sessionStore?: SessionStoreOptions;
  readonly runEnv: Readonly<Record<string, string>>;
  readonly envAtClaim?: RunOptions["envAtClaim"];
  readonly secretFiles: readonly SecretFile[];
  /** Written by the container's launcher to its tmpfs (RunOptions.tmpfsSecrets); empty: the container runs the plan's words itself. */
  readonly tmpfsSecrets: Readonly<Record<string, string>>;
  readonly stallSeconds?: number;
  readonly onStallWarning?: (info: { readonly silentMs: number }) => void;
  /** The Run's own network, made before its container and removed after it; default: the declared networks. */
  readonly network?: RunNetwork;
  /** Where that network takes its subnet: the runtime's Run network range. */
  readonly addresses?: RunAddresses;
  /** The owner label its network carries, as its container does. */
  readonly owner: string;
  /**
   * How what the agent writes is bounded: "mount", a tmpfs this process mounts over out/ (root on
   * the engine's host); "volume", out/ (or the writable work/) and the session store's working copy
   * as in-memory volumes of the Run's own (out-volume.ts).
   */
  readonly writeBound: WriteBound;
  /**
   * How the Run's files reach its container: "disk", bind mounts of the Run directory (the engine
   * shares this host's disk); "engine", volumes of the Run's own filled and read back through the
   * engine's archive (write bound "volume"), and no bind mount at all.
   */
  readonly runFiles: RunFiles;
  /** The runtime's warm pool; default none (every Run cold). */
  readonly pool?: Pool;
  /** Where the Run's container lives (run-backend.ts): a container on the Run's engine, or a Pod. */
  readonly backend: RunLauncher;
};

/** How a Run ended at its backend: early, with its Outcome, or with its container's facts (`warm`: served by a pool member, or cold beside a pool). */
export type LaunchedRun<R extends ReaderVerdict> = { readonly outcome: Outcome<R> } | { readonly facts: ContainerFacts<R>; readonly warm?: boolean };

/**
 * What a Run asks of its Run Backend (the rest of it is the runtime's: run-backend.ts): the networks
 * its composed spec joins, and its container launched, run and undone, its files brought back.
 */
export type RunLauncher = {
  /** The networks the Run's container joins, when it has its own (`network`); undefined: the declared ones. */
  readonly networksOf: <R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>) => readonly string[] | undefined;
  /** The Run's container (or Pod), cold, from its composed spec: its facts, or the Outcome that says why it did not run. */
  readonly launch: <R extends ReaderVerdict, Q>(
    ctx: RunContext<R, Q>,
    state: StepState,
    spec: ComposedSpec,
    planned: { readonly plan: RunPlan<R>; readonly stdin: Uint8Array },
    staged: StagedRun | undefined,
  ) => Promise<LaunchedRun<R>>;
};

export type WriteBound = "mount" | "volume";

/** How a Run's files reach the engine: on its disk (bind mounts of the Run directory) or through the engine (its archive, volumes of the Run's own). */
export type RunFiles = "disk" | "engine";

/** A staged Run's directory, and with a writable work/ what was staged there. */
export type StagedRun = Extract<Staged, { readonly ok: true }>;

/** The steps' state: what they have made and learnt so far; absent: not (yet) made or read. */
export type StepState = {
  /** The Run's deadline and cancel: every step watches it; disposed when the Run is over. */
  readonly stop: RunStop;
  /** The Run's record on disk, once opened (a staged Run whose plan was answered). */
  record?: RecordWriter;
  /** The Run's own network exists: it is removed after the container. */
  networkOpen: boolean;
  /** The subnet the Run's network holds, given back once it is removed. */
  networkSubnet?: string | undefined;
  /** The Run's own volumes, once made (write bound "volume" only). */
  volumes?: RunVolumes;
  /** What the volume of the Run's writable place (out/, or all of work/) held, once read. */
  collectedOut?: CollectedVolume;
  /** What its session store's volume held, once read. */
  collectedSession?: CollectedVolume;
};

export function createStepState<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): StepState {
  const stop = createRunStop({ timeoutMs: ctx.timeoutSeconds * 1000, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) });
  return { stop, networkOpen: false };
}

/** The Outcome of a Run that ended before its container ran. */
export function endEarly<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, reason: EndReason, error: string): Outcome<R> {
  return earlyOutcome<R>(ctx.runId, ctx.startedAt, ctx.masker, reason, error);
}

/** What is left of the Run's timeout now, in ms (staging and the steps before took some). */
export function timeLeftMs<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): number {
  return ctx.startedAt + ctx.timeoutSeconds * 1000 - performance.now();
}

/** The one sentence of a failure, masked, for a log line or an Outcome. */
export function maskedMessage<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, error: unknown): string {
  return ctx.masker.mask(error instanceof Error ? error.message : String(error));
}
