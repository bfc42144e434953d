// Every bound a Run is held to, in one place, with the unit in the name.
// A new limit gets a constant here and a clear error or Outcome reason where it is hit.

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** Stdout bytes read from one Run; past this the container is killed (`output_limit`). */
export const MAX_STDOUT_BYTES = 64 * MiB;
/** Stderr bytes kept for the record; the rest is counted and dropped. */
export const MAX_STDERR_RECORD_BYTES = 8 * MiB;
/** Stderr bytes quoted in a failure message. */
export const STDERR_QUOTE_BYTES = 2 * KiB;
/** Bytes the Run Plan may send on stdin (the prompt); over it the Run ends as `input_limit`. */
export const MAX_STDIN_BYTES = 32 * MiB;
/** Bytes queued for a slow reader before the container's output is paused. */
export const STDOUT_HIGH_WATER_BYTES = 1 * MiB;

export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;
export const DEFAULT_TIMEOUT_SECONDS = 60 * 60;
/** Between SIGTERM and SIGKILL when a Run is stopped. */
export const DEFAULT_STOP_GRACE_SECONDS = 10;
export const MAX_STOP_GRACE_SECONDS = 10 * 60;

/** How long past timeout + grace a Run waits for an engine that does not answer before giving up on it. */
export const ENGINE_ANSWER_MARGIN_MS = 30_000;
/** Bound on each clean-up call (inspect, remove) to the engine at the end of a Run. */
export const ENGINE_CLEANUP_TIMEOUT_MS = 30_000;

export const DEFAULT_MEMORY_BYTES = 2 * GiB;
/** Below this the container runtime itself cannot start reliably. */
export const MIN_MEMORY_BYTES = 8 * MiB;
export const MAX_MEMORY_BYTES = 1024 * GiB;
export const DEFAULT_PIDS_LIMIT = 256;
export const MIN_PIDS_LIMIT = 8;
export const MAX_PIDS_LIMIT = 65_536;
export const DEFAULT_TMPFS_BYTES = 256 * MiB;
export const MIN_TMPFS_BYTES = 1 * MiB;
export const MAX_TMPFS_BYTES = 64 * GiB;
export const MAX_CPUS = 1024;

export const DEFAULT_MAX_CONCURRENT_RUNS = 1;
export const MAX_CONCURRENT_RUNS = 1024;

/** The uid:gid an agent runs as when this process is root: never uid 0. */
export const FALLBACK_AGENT_USER = "10002:10002";
/** Environment values shorter than this are not masked: they cannot be credentials, and masking them would garble every record. */
export const MIN_MASKED_VALUE_LENGTH = 6;
