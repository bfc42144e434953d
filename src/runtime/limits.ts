// Every bound a Run is held to while it runs, in one place, with the unit in the name. The
// declaration's own bounds (memory, pids, timeouts) are in src/container/limits.ts and re-exported here.
// A new limit gets a constant here and a clear error or Outcome reason where it is hit.

export {
  DEFAULT_MEMORY_BYTES,
  DEFAULT_PIDS_LIMIT,
  DEFAULT_STOP_GRACE_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_TMPFS_BYTES,
  FALLBACK_AGENT_USER,
  MAX_CPUS,
  MAX_MEMORY_BYTES,
  MAX_PIDS_LIMIT,
  MAX_STOP_GRACE_SECONDS,
  MAX_TIMEOUT_SECONDS,
  MAX_TMPFS_BYTES,
  MIN_MEMORY_BYTES,
  MIN_PIDS_LIMIT,
  MIN_TIMEOUT_SECONDS,
  MIN_TMPFS_BYTES,
} from "../container/index.js";
export { MIN_MASKED_VALUE_LENGTH } from "../redact/index.js";

import { availableParallelism, totalmem } from "node:os";
import { DEFAULT_MEMORY_BYTES as DEFAULT_MEMORY_BYTES_FOR_CONCURRENCY } from "../container/index.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/** Stdout bytes read from one Run; past this the container is killed (`output_limit`). */
export const MAX_STDOUT_BYTES = 64 * MiB;
/** Stderr bytes kept for the record; the rest is counted and dropped. */
export const MAX_STDERR_RECORD_BYTES = 8 * MiB;
/** Stderr bytes quoted in a failure message. */
export const STDERR_QUOTE_BYTES = 2 * KiB;
/** Bytes the Run Plan may send on stdin (the prompt); over it the Run ends as `input_limit`. */
export const MAX_STDIN_BYTES = 32 * MiB;
/** The longest a plan may let its agent linger after its answer (RunPlan.exitGraceMs). */
export const MAX_EXIT_GRACE_MS = 10 * 60 * 1000;
/** Bytes queued for a slow reader before the container's output is paused. */
export const STDOUT_HIGH_WATER_BYTES = 1 * MiB;

/**
 * How long after the Run's own timeout its container's timer sends the stop signal (then SIGKILL a
 * grace later): late enough that a live orchestrator always stops the Run first and names it
 * `timeout`, so the timer matters only when nobody is left to stop the container.
 */
export const CONTAINER_DEADLINE_MARGIN_SECONDS = 1;
/**
 * How long past timeout + grace (the user's deadline, exact) a Run waits for an engine that does not
 * answer before giving up on it, on an idle machine: stretched by the load (src/liveness), and so in the
 * deadline label a sweep reads and in a volume holder's own timer, as they are made.
 */
export const ENGINE_ANSWER_MARGIN_MS = 30_000;
/**
 * After a container died of a signal nobody here sent, the engine is asked this often, for this
 * long (stretched by the load), whether it is still there: one that is shutting down refuses, or
 * stops answering, within it (each ping given four intervals at the least). It names why a Run
 * already ended (`unavailable` or `cancelled`), and never ends one.
 */
export const ENGINE_PROBE_INTERVAL_MS = 250;
export const ENGINE_PROBE_WINDOW_MS = 3000;
/** Bound on each copy into or out of a Run's volume through the engine's archive (up to its size), on an idle machine: stretched by the load. */
export const OUT_COPY_TIMEOUT_MS = 120_000;
/** Bound on each engine call that makes a Run's volumes and their holder (create a volume, create and start the holder), on an idle machine: stretched by the load. */
export const VOLUME_SETUP_TIMEOUT_MS = 30_000;
/** Bound on each clean-up call (inspect, remove) to the engine at the end of a Run, and on a network call's answer, on an idle machine: stretched by the load. */
export const ENGINE_CLEANUP_TIMEOUT_MS = 30_000;
/**
 * Run network set-ups (create and join) and removals this process asks of one engine at once; the
 * rest wait their turn (network-line.ts). The engine serializes much of that work, so more at once
 * only lengthens every answer: measured in bench/load-model.ts.
 */
export const NETWORK_CALLS_AT_ONCE = 2;
/** The longest a network call holds its turn when the engine does not answer it, on an idle machine (stretched by the load): a lost call must not hold it for ever. */
export const NETWORK_TURN_MAX_MS = 4 * ENGINE_CLEANUP_TIMEOUT_MS;

/** The most Runs at once a runtime (maxConcurrentRuns), an engine (slots=) or the service (--slots) takes. */
export const MAX_CONCURRENT_RUNS = 1024;
/**
 * Runs at once unless maxConcurrentRuns says otherwise: one per core this process may use, and no
 * more than this machine's memory holds at the default memory limit; at least 1. On 2 cores and
 * 24 GiB that is 2. More Runs than this queue (their wait is the Outcome's `queuedMs`).
 */
export const DEFAULT_MAX_CONCURRENT_RUNS = Math.max(1, Math.min(availableParallelism(), runsMemoryHolds()));

/**
 * Runs at once that `memoryBytes` (this machine's memory) holds with every Run's container at the
 * default memory limit, at least 1 and at most MAX_CONCURRENT_RUNS: 12 on 24 GiB. The service's
 * default slots: a service Run's agent mostly waits on its model, so memory bounds it, not cores.
 */
export function runsMemoryHolds(memoryBytes: number = totalmem()): number {
  return Math.min(MAX_CONCURRENT_RUNS, Math.max(1, Math.floor(memoryBytes / DEFAULT_MEMORY_BYTES_FOR_CONCURRENCY)));
}

/** The range of a Run's stallSeconds, whole seconds: a second to a day. */
export const MIN_STALL_SECONDS = 1;
export const MAX_STALL_SECONDS = 24 * 60 * 60;
/**
 * CPU time per second of wall time above which an agent that prints nothing counts as working, when
 * two readings in a row say so: 100 ms a second, a tenth of one core. A CLI waiting on a silent
 * model is not idle at zero: the pinned claude, measured over 20 s in half-second windows, used
 * 8 ms/s with timer spikes of 40 to 90 ms (15 ms/s on average), codex under 2 ms/s; a test suite,
 * a compiler or a build uses several hundred ms/s, sustained.
 */
export const STALL_CPU_ACTIVE_NS_PER_SECOND = 100_000_000;
/** CPU time per second of wall time that counts as working from one reading alone: 400 ms a second, more than any idle spike measured. */
export const STALL_CPU_BURST_NS_PER_SECOND = 400_000_000;
/** The watchdog reads the container's CPU time every stall time / 5, within these bounds. */
export const STALL_SAMPLE_MIN_MS = 250;
export const STALL_SAMPLE_MAX_MS = 5000;
/**
 * How long one reading of the CPU time may take before it is abandoned: twice the sample interval,
 * at least this (Docker answers a one-shot reading at its stats collector's next 1 s tick), stretched
 * by the load. An abandoned reading is no evidence: the stall clock starts over, the Run goes on.
 */
export const STALL_SAMPLE_MIN_TIMEOUT_MS = 2000;

/**
 * With several engines (engine-set.ts): each is pinged this often, and a ping answers within this
 * long on an idle machine (stretched by the load, src/liveness). A ping past it is late: the engine is
 * slow, counted, and waited for; never drained for it.
 */
export const ENGINE_HEALTH_INTERVAL_MS = 1000;
export const ENGINE_PING_TIMEOUT_MS = 3000;
/** While an engine's ping is late, its next reading comes after a backoff that doubles from ENGINE_HEALTH_INTERVAL_MS up to this. */
export const ENGINE_SLOW_RECHECK_MAX_MS = 16_000;
/**
 * Pings in a row that must show an engine gone (refused: nobody listens on its socket, TLS or ssh
 * refuses; or broken before any answer) before it is drained (its Runs ended `unavailable`, no new
 * one placed there): a connection reset once, as a restarting engine's, is not an engine gone.
 */
export const ENGINE_DRAIN_AFTER_FAILED_PINGS = 2;
/**
 * Seconds a cold Run's launcher (cold-launch.ts) waits for its claim, written right after its start,
 * on an idle machine (stretched by the load as its container is made): only a process gone in
 * between leaves it waiting, and then it exits by itself.
 */
export const CLAIM_WAIT_SECONDS = 60;
