// One HTTP request on its way through the proxy, from its arrival to its response's close: the
// fields of its log line, and the one way the proxy refuses it.
// Invariant: each request gets exactly one log line, written when its response closes, and a
// refusal is named in that line.

import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { RequestLog } from "./live-run.js";
import { logRequest } from "./proxy-log.js";
import type { ProxyState } from "./proxy-state.js";
import { refuse, type RefusalCode } from "./refusals.js";

export type Exchange = {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The request target as sent: a path and its query (or, from a client taking this for a proxy, a URL). */
  readonly target: string;
  readonly entry: RequestLog;
  /** Answers the proxy's own refusal, and names it in the log line. */
  readonly refuse: (status: number, code: RefusalCode, message: string, headers?: Readonly<Record<string, string>>) => void;
};

export function openExchange(state: ProxyState, req: IncomingMessage, res: ServerResponse): Exchange {
  const started = performance.now();
  const method = req.method ?? "GET";
  const entry: RequestLog = { method, bytesIn: 0, bytesOut: 0 };
  res.once("close", () => {
    entry.status = res.headersSent ? res.statusCode : 0;
    logRequest(state, entry, started);
  });
  return {
    req,
    res,
    method,
    target: req.url ?? "/",
    entry,
    refuse: (status, code, message, headers) => {
      entry.refused = code;
      refuse(res, status, code, message, headers);
    },
  };
}
