// What one container run carries from step to step: the caller's context, read-only, and the state
// the steps fill in as the container is created, started, read and ended. The state is the only
// thing the steps share; the Run's facts are built from it once, at the end.
// Invariant: every field of the state says what has happened, never what is meant to happen.

import type { Logger } from "pino";
import type { ComposedSpec } from "../../container/index.js";
import type { ContainerExitEvent, ContainerStreams, Engine } from "../../engine/index.js";
import type { ExitFacts, ReaderVerdict, RunPlan } from "../../plan/index.js";
import type { Masker } from "../../redact/index.js";
import type { ContainerFacts } from "../end-reason.js";
import type { RunStop } from "../stop.js";
import type { RunOutput } from "./streams.js";
import type { Watchdog } from "./watchdog.js";
import type { RunTrace } from "../../trace/index.js";

export type ContainerRunContext<R extends ReaderVerdict> = {
  readonly runId: string;
  /** The Run's span, the parent of the create, start, stream and remove steps; absent, no spans. */
  readonly trace?: RunTrace;
  readonly spec: ComposedSpec;
  readonly plan: RunPlan<R>;
  readonly stdin: Uint8Array;
  readonly engine: Engine;
  readonly stop: RunStop;
  readonly graceMs: number;
  /**
   * The Run's own timeout and grace from now (the user's deadline, exact): past it and ENGINE_ANSWER_MARGIN_MS
   * (stretched by the load), an engine that does not answer at all is given up on.
   */
  readonly ownDeadlineMs: number;
  readonly logger: Logger;
  readonly masker: Masker;
  readonly onStdout?: (chunk: Uint8Array) => void;
  readonly onStderr?: (chunk: Uint8Array) => void;
  /** Printing nothing and using no CPU this long ends the Run as `stalled`; absent: no watchdog. */
  readonly stallSeconds?: number;
  /** Half of stallSeconds passed in silence; again only after activity and a new silence. */
  readonly onStallWarning?: (info: { readonly silentMs: number }) => void;
  /** Called once, the moment the container is seen not running (or given up on), before anything else of the Run ends. */
  readonly onExited?: () => void;
  /** Called as the watchdog starts, with what to call each time the agent's traffic is seen live elsewhere (the egress proxy). */
  readonly liveness?: (alive: () => void) => void;
  /**
   * A pool member already created, attached and started (its launcher waiting), which this Run
   * claims instead of making a container: `claim` is written before stdin. `spec` is then the member's. Default: cold.
   */
  readonly warm?: { readonly containerId: string; readonly streams: ContainerStreams; readonly claim: Uint8Array; readonly claimed: () => void };
};

/** How the container's end looked from outside it, once it is over. */
export type ContainerEnd = {
  readonly exit?: ExitFacts;
  /** The container was gone before this Run removed it: someone else did. */
  readonly removedFromOutside?: true;
  /** The container died of a signal this Run did not send: a `docker stop`, or the engine going away. */
  readonly stoppedFromOutside?: "by_someone" | "engine_gone";
};

/** What the steps have learnt so far; absent: not (yet) known. */
export type ContainerRunState<R extends ReaderVerdict> = {
  /** The container's id, once the engine created it. */
  id?: string | undefined;
  /** The engine accepted the start: from here on the container may have run. */
  started: boolean;
  /** The container's output, as read from its attach streams. */
  output?: RunOutput;
  /** The stall watchdog, when the Run has one and it was started. */
  watchdog?: Watchdog;
  /** The first thing the engine got wrong, as the Outcome's sentence. */
  engineFailure?: string;
  /** The plan's reader threw, or returned what is no verdict. */
  readerThrew?: string;
  verdict?: R | undefined;
  /** The exit as the engine's event told it, when it is the agent's own (a code under 128, no OOM): no inspect is needed. */
  exitEvent?: ContainerExitEvent;
  /** Filled in last, once the container is not running. */
  end: ContainerEnd;
};

export function createContainerRunState<R extends ReaderVerdict>(): ContainerRunState<R> {
  return { started: false, end: {} };
}

/** The Run's facts: the same fields whether its container ran, failed or was never made. */
export function containerFacts<R extends ReaderVerdict>(state: ContainerRunState<R>, stop: RunStop): ContainerFacts<R> {
  const { engineFailure, readerThrew, verdict, output } = state;
  const { exit, removedFromOutside, stoppedFromOutside } = state.end;
  const interruption = stop.interruption();
  return {
    ...(interruption === undefined ? {} : { interruption: interruption.why, interruptionDetail: interruption.detail }),
    ...(engineFailure === undefined ? {} : { engineFailure }),
    ...(readerThrew === undefined ? {} : { readerThrew }),
    ...(verdict === undefined ? {} : { verdict }),
    ...(exit === undefined ? {} : { exit }),
    ...(removedFromOutside ? { removedFromOutside } : {}),
    ...(stoppedFromOutside === undefined ? {} : { stoppedFromOutside }),
    stdoutBytes: output?.stdoutBytes() ?? 0,
    stderrText: output?.stderr.text() ?? "",
    stderrBytes: output?.stderr.totalBytes() ?? 0,
  };
}
