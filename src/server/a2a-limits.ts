// Every bound the A2A face holds a caller to, in one place, with the unit in the name.

/** Where the JSON-RPC endpoint lives; the agent card names it. */
export const A2A_JSONRPC_PATH = "/a2a/jsonrpc";
/** An output JSON schema in message metadata, as JSON. */
export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;
/** A message id doubles as the Run's idempotency key; longer ones are refused. */
export const MAX_MESSAGE_ID_CHARACTERS = 200;
/** Tasks with no Run (rejected: the queue was full) kept in memory, the newest; a Run's task is kept in its directory. */
export const MAX_TASKS_KEPT = 256;

/**
 * How long checking one answer against an output schema may take, in its worker; past it the task
 * fails naming the pattern that was running (a caller's pattern can backtrack for minutes).
 */
export const OUTPUT_CHECK_TIMEOUT_MS = 5_000;

/** The file an agent may leave in out/ as its answer, checked against an output schema before its final text. */
export const RESULT_FILE = "result.json";
/** Bytes of out/result.json read as an answer; a bigger one fails the check. */
export const MAX_RESULT_FILE_BYTES = 1024 * 1024;

/** Push notification configs one task may have at once; a sixth is refused until one is deleted. */
export const MAX_PUSH_CONFIGS_PER_TASK = 5;
/** A push notification config's url, in characters (as a Run's callbackUrl). */
export const MAX_PUSH_URL_CHARACTERS = 2048;
/** A push notification config's token, or its authentication scheme and credentials together, in characters. */
export const MAX_PUSH_CREDENTIAL_CHARACTERS = 4096;
/** How long one push notification may take, the lookup, the connection and the answer together. */
export const PUSH_ATTEMPT_TIMEOUT_MS = 10_000;
/** Push notifications of one task waiting their turn; past it an event is not pushed (and logged). */
export const MAX_PENDING_PUSHES_PER_TASK = 64;
