// Every bound a declaration is held to, in one place, with the unit in the name: what an Agent
// Container may ask for and what it gets when it asks for nothing. Validation reads these only.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const MIN_TIMEOUT_SECONDS = 1;
export const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;
/** A Run of the runtime that names no timeoutSeconds; an agent request has its own, shorter default (agents: DEFAULT_REQUEST_TIMEOUT_SECONDS). */
export const DEFAULT_TIMEOUT_SECONDS = 60 * 60;
/** Between SIGTERM and SIGKILL when a Run is stopped. */
export const DEFAULT_STOP_GRACE_SECONDS = 10;
export const MAX_STOP_GRACE_SECONDS = 10 * 60;

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

/** The uid:gid an agent runs as when this process is root: never uid 0. */
export const FALLBACK_AGENT_USER = "10002:10002";

/** How long a kept session store outlives its last use (a Run that resumed or kept it) before a sweep removes it. */
export const DEFAULT_SESSION_RETENTION_DAYS = 30;
/** How long a kept Run directory (keepRuns) outlives its Run's start before a sweep removes it. */
export const DEFAULT_KEPT_RUN_RETENTION_DAYS = 1;
/** The longest retention either may ask for: ten years, past which "keep" is "never sweep", which is not offered. */
export const MAX_RETENTION_DAYS = 3650;
export const DAY_MS = 24 * 60 * 60 * 1000;
