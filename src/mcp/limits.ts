// Every bound the MCP tools hold a caller to, in one place, with the unit in the name. The Run
// request itself is held to the service's own limits (its schema comes from the desk).

const KiB = 1024;

/** Events one run_events call answers at most; the next call asks from the last one's id. */
export const MAX_EVENTS_PER_CALL = 200;
/** Bytes of one harvested file that read_artifact answers; a larger file is cut there and says so. */
export const MAX_ARTIFACT_READ_BYTES = 256 * KiB;
/** Characters of one progress notification's message: a line for a person, not the agent's output. */
export const MAX_PROGRESS_MESSAGE_CHARACTERS = 200;
/** Characters of a file path a tool takes (inputs, read_artifact's path). */
export const MAX_PATH_CHARACTERS = 4096;
/**
 * Bytes of one JSON-RPC message on stdio (one line, its newline aside): a longer one is counted to
 * its newline but not kept, and refused; the SDK's own stdio transport holds as much and then closes.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * KiB;
