// The stall watchdog: tells an agent that hangs (prints nothing and uses no CPU to speak of) from one
// that works quietly (a test suite or a build prints nothing but burns CPU). An idle CLI's timers
// use a little CPU with spikes, so work is CPU above a rate for two readings in a row, or far above
// it for one. It never calls a Run stalled without evidence: only readings that answered, one after
// another, with no output and no work between them, add up to the stall time; a failed one starts it over.
// A late reading is never evidence either way: its bound (not a user's deadline) stretches with the load.

import { describeBound, patientTimer } from "../../liveness/index.js";
import {
  STALL_CPU_ACTIVE_NS_PER_SECOND,
  STALL_CPU_BURST_NS_PER_SECOND,
  STALL_SAMPLE_MAX_MS,
  STALL_SAMPLE_MIN_MS,
  STALL_SAMPLE_MIN_TIMEOUT_MS,
} from "../limits.js";

export type Silence = {
  /** How long it has printed nothing and used no CPU: the stall clock. */
  readonly silentMs: number;
  /** How long it has printed nothing (since it started, when it never printed); at least silentMs. */
  readonly quietOutputMs: number;
};

export type WatchdogOptions = {
  readonly stallMs: number;
  /** One reading of the container's cumulative CPU time (ns); undefined when it is not running. */
  readonly cpuNs: (signal: AbortSignal) => Promise<number | undefined>;
  /** Whether the agent is held up by this side (its output paused for a slow reader): not its silence. */
  readonly heldUp: () => boolean;
  /** Half the stall time has passed in silence; called again only after activity and a new silence. */
  readonly onWarning: (silence: Silence) => void;
  /** The stall time has passed in silence; called once, and the watchdog stops. */
  readonly onStall: (silence: Silence) => void;
  /** A reading failed or was abandoned after its bound. */
  readonly onReadingFailed: (error: unknown) => void;
};

export type Watchdog = {
  /** The agent printed something (any byte on stdout or stderr). */
  readonly output: () => void;
  /** Someone who sees the agent's traffic saw it live (its model's answer streaming to it): not silence, though it printed nothing. */
  readonly alive: () => void;
  readonly stop: () => void;
};

/** How often the CPU time is read: a fifth of the stall time, within STALL_SAMPLE_MIN_MS..STALL_SAMPLE_MAX_MS. */
export function sampleIntervalMs(stallMs: number): number {
  return Math.min(STALL_SAMPLE_MAX_MS, Math.max(STALL_SAMPLE_MIN_MS, Math.round(stallMs / 5)));
}

/** The Outcome's sentence for a stalled Run. */
export function stallDetail(silence: Silence, stallSeconds: number): string {
  const quiet = Math.floor(silence.silentMs / 1000);
  const printed = Math.floor(silence.quietOutputMs / 1000);
  const what = printed > quiet ? `printed nothing for ${printed} s and used no CPU for the last ${quiet} s` : `printed nothing and used no CPU for ${quiet} s`;
  return `the agent ${what} (stallSeconds ${stallSeconds}); it was stopped`;
}

export function startWatchdog(o: WatchdogOptions): Watchdog {
  const intervalMs = sampleIntervalMs(o.stallMs);
  const timeoutMs = Math.max(STALL_SAMPLE_MIN_TIMEOUT_MS, 2 * intervalMs);
  let lastOutputAt = performance.now();
  /** The last reading that answered (asked at `at`), and since when the readings have shown no CPU use. */
  let last: { readonly at: number; readonly ns: number } | undefined;
  let quietSince: number | undefined;
  /** The last interval's CPU rate was above STALL_CPU_ACTIVE_NS_PER_SECOND: one more such is work. */
  let warm = false;
  let warned = false;
  let inFlight = false;
  let stopped = false;
  let current: AbortController | undefined;

  const activity = (): void => {
    warned = false;
  };
  const noEvidence = (): void => {
    last = undefined;
    quietSince = undefined;
    warm = false;
  };

  /** One reading at a time: a tick while one is out is skipped; one that takes too long (stretched by the load) is abandoned. */
  async function read(): Promise<void> {
    if (inFlight || stopped) return;
    inFlight = true;
    const askedAt = performance.now();
    const controller = new AbortController();
    current = controller;
    const bound = patientTimer(timeoutMs, (hit) => controller.abort(new Error(`the engine did not answer a CPU reading within ${describeBound(hit)}`)));
    try {
      const ns = await o.cpuNs(controller.signal);
      if (controller.signal.aborted) throw controller.signal.reason;
      if (!stopped) judge(askedAt, performance.now(), ns);
    } catch (error) {
      noEvidence();
      if (!stopped) o.onReadingFailed(error);
    } finally {
      bound.cancel();
      inFlight = false;
    }
  }

  /** A reading asked at `askedAt` answered at `answeredAt`: was there CPU use since the last, and has the silence lasted? */
  function judge(askedAt: number, answeredAt: number, ns: number | undefined): void {
    if (ns === undefined) {
      noEvidence();
      return;
    }
    const previous = last;
    last = { at: askedAt, ns };
    // The quiet stretch starts when a reading's answer is in hand: the engine may read the CPU
    // time any moment between the question and the answer, so only after it is the quiet proven.
    const rate = previous === undefined || askedAt <= previous.at ? 0 : ((ns - previous.ns) * 1000) / (askedAt - previous.at);
    const above = rate > STALL_CPU_ACTIVE_NS_PER_SECOND;
    const working = previous !== undefined && (ns < previous.ns || rate > STALL_CPU_BURST_NS_PER_SECOND || (above && warm));
    warm = above;
    if (previous === undefined || working) {
      if (previous !== undefined) activity();
      quietSince = answeredAt;
      return;
    }
    if (o.heldUp()) {
      lastOutputAt = answeredAt;
      activity();
      return;
    }
    // Judged as of the question: the reading proves no CPU use up to then, not up to its answer.
    const silence = { silentMs: askedAt - Math.max(lastOutputAt, quietSince ?? answeredAt), quietOutputMs: askedAt - lastOutputAt };
    if (silence.silentMs >= o.stallMs) {
      stop();
      o.onStall(silence);
    } else if (silence.silentMs >= o.stallMs / 2 && !warned) {
      warned = true;
      o.onWarning(silence);
    }
  }

  const timer = setInterval(() => void read(), intervalMs);
  void read();

  function stop(): void {
    stopped = true;
    clearInterval(timer);
    current?.abort(new Error("the watchdog stopped"));
  }

  return {
    output: () => {
      lastOutputAt = performance.now();
      activity();
    },
    alive: () => {
      if (quietSince !== undefined) quietSince = performance.now();
      activity();
    },
    stop,
  };
}
