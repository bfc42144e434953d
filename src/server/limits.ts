// Every bound the service holds a caller to, in one place, with the unit in the name.

const KiB = 1024;
const MiB = 1024 * KiB;

/** A request body (a Run request as JSON). */
export const MAX_BODY_BYTES = 1 * MiB;
/** A Run's prompt, in characters. */
export const MAX_PROMPT_CHARACTERS = 512 * KiB;
/** Runs waiting for a slot; past it POST /v1/runs answers 429. */
export const DEFAULT_QUEUE_BOUND = 100;
/** How long a caller is told to wait after a 429. */
export const RETRY_AFTER_SECONDS = 5;
/** Between keep-alive comments on an event stream. */
export const SSE_KEEPALIVE_MS = 15_000;
/** Runs one page of GET /v1/runs holds at most. */
export const MAX_PAGE_SIZE = 200;
/** Labels on one Run, and the length of each key and value. */
export const MAX_LABELS = 32;
export const MAX_LABEL_CHARACTERS = 128;
/** How long SIGTERM lets running Runs finish before they are cancelled. */
export const DRAIN_GRACE_MS = 30_000;
