// Every bound the A2A face holds a caller to, in one place, with the unit in the name.

/** Where the JSON-RPC endpoint lives; the agent card names it. */
export const A2A_JSONRPC_PATH = "/a2a/jsonrpc";
/** An output JSON schema in message metadata, as JSON. */
export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;
/** A message id doubles as the Run's idempotency key; longer ones are refused. */
export const MAX_MESSAGE_ID_CHARACTERS = 200;
/**
 * Finished tasks kept in memory with their A2A history (a prompt can be 512 KiB); older ones are
 * answered from their Run's record, without history or an output schema's verdict.
 */
export const MAX_TASKS_KEPT = 256;
