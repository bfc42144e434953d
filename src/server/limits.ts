// Every bound the service holds a caller to, in one place, with the unit in the name.

import { limits as runtimeLimits } from "../runtime/index.js";
import { INPUT_UPLOAD_TIMEOUT_MS } from "../staging/index.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/** A request body (a Run request as JSON). */
export const MAX_BODY_BYTES = 1 * MiB;
/**
 * Levels of arrays and objects a JSON body may nest, the body itself level 1 (the request body of
 * every route, A2A's JSON-RPC and /mcp included); past it the answer is 400. Far more than any
 * request here needs (an output schema, an A2A data part), far less than what overflows the stack
 * of what reads the value after the parser.
 */
export const MAX_BODY_DEPTH = 128;
/** A Run's prompt, in characters. */
export const MAX_PROMPT_CHARACTERS = 512 * KiB;
/**
 * Runs at once (--slots) unless the Operator says: as many as this host's memory holds with every
 * Run's container at the default memory limit (12 on 24 GiB). A service Run's agent mostly waits on
 * its model, so the cores do not bound it; the engine starts containers at its own pace whatever the
 * slots (bench/load-service.ts: Runs per second against the engine's floor).
 */
export const DEFAULT_SLOTS = runtimeLimits.runsMemoryHolds();
/** The most --slots takes: the runtime's own bound on Runs at once. */
export const MAX_SLOTS = runtimeLimits.MAX_CONCURRENT_RUNS;
/** Runs accepted and not ended (waiting for a slot or running); past it POST /v1/runs answers 429. */
export const DEFAULT_QUEUE_BOUND = 100;
/** How long a caller is told to wait after a 429. */
export const RETRY_AFTER_SECONDS = 5;
/** Between keep-alive comments on an event stream. */
export const SSE_KEEPALIVE_MS = 15_000;
/**
 * What an event stream's follower may leave unread (bytes the service holds for it) before its stream
 * is cut: a follower that stops reading costs a bounded share of memory, and stalls no other. An
 * EventSource reconnects with Last-Event-ID and reads on from the record, missing nothing.
 */
export const MAX_EVENT_STREAM_BACKLOG_BYTES = 8 * MiB;
/** Runs one page of GET /v1/runs holds at most. */
export const MAX_PAGE_SIZE = 200;
/** Labels on one Run, and the length of each key and value. */
export const MAX_LABELS = 32;
export const MAX_LABEL_CHARACTERS = 128;
/** How long SIGTERM lets running Runs finish before they are cancelled. */
export const DRAIN_GRACE_MS = 30_000;

/** Between SIGTERM and SIGKILL when the service stops a Run (a cancel, a drain): a caller waits on it. */
export const SERVICE_STOP_GRACE_SECONDS = 3;

// Every connection is held to these, whatever it sends: none can hold a socket by saying nothing,
// or by saying its headers a byte at a time.

/**
 * How long stop() lets a request still in flight finish once the Runs are drained, before it closes
 * every connection left: a slow upload or a keep-alive client must not hold a stop for Fastify's
 * 72 s keep-alive (past compose's 10 s before SIGKILL) or an upload's timeout.
 */
export const STOP_CONNECTIONS_GRACE_MS = 3_000;

/** A connection silent this long before its first request's headers are in (no byte at all, or no more) is closed. */
export const IDLE_CONNECTION_TIMEOUT_MS = 10_000;
/** A request's headers, from its first byte to the blank line; past it the answer is 408 and the connection closes. */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * A whole request, body included, from its first byte. An inputs upload is bounded by its own
 * INPUT_UPLOAD_TIMEOUT_MS (and answered 408 in its own words) well before this one.
 */
export const REQUEST_TIMEOUT_MS = INPUT_UPLOAD_TIMEOUT_MS + 60_000;
/** How often the server looks for connections past HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS: the most they overrun by. */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** Between the sweeps of a running service (kept session stores and Run directories past their retention, what crashed Runs left). */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

// Tenants, keys and quotas.

/** A key's last use is kept in memory at each request and written at most this often. */
export const KEY_LAST_USE_WRITE_MS = 10_000;
/** The audit log's file is rotated past this size; AUDIT_FILES_KEPT rotated files are kept beside it. */
export const AUDIT_MAX_FILE_BYTES = 10 * MiB;
export const AUDIT_FILES_KEPT = 5;
/** The in-memory store's audit log keeps its newest this many entries. */
export const AUDIT_MEMORY_ENTRIES = 10_000;
/** Refusals at the door from one address within this window are one audit entry with their count. */
export const AUDIT_REFUSALS_WINDOW_MS = 60_000;
/** Entries one read of the audit log answers at most. */
export const MAX_AUDIT_ENTRIES = 10_000;

// The events feed.

/** The feed's file is rotated past this many entries, and one rotated file is kept: the newest this many to twice this many entries are kept. */
export const FEED_ENTRIES_PER_FILE = 20_000;
/** Entries one page of GET /v1/events holds at most. */
export const MAX_FEED_PAGE = 1_000;

// The service's own state (GET /v1/service).

/** How long GET /v1/service waits for the egress proxy's control endpoint to answer before it says it does not. */
export const EGRESS_PROBE_TIMEOUT_MS = 2_000;
/** Where the MCP server answers over streamable HTTP. */
export const MCP_PATH = "/mcp";
/** A request body on /mcp: a tool call whose inputsArchive is base64 (4 bytes for every 3 of the archive). */
export const MAX_MCP_BODY_BYTES = 24 * MiB;
