// Decides what a caller's W3C `traceparent` (and `tracestate`) header means: the remote parent of a
// Run's span, or nothing. Invariant: a malformed header is ignored (W3C Trace Context, "parent"), never an error.

import { type Context, createTraceState, ROOT_CONTEXT, type SpanContext, trace } from "@opentelemetry/api";

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_SPAN_ID = "0".repeat(16);

/** A caller's trace context as the headers carry it; both as given, unchecked. */
export type TraceHeaders = {
  readonly traceparent?: string;
  readonly tracestate?: string;
};

/** The remote span a `traceparent` names, or undefined when it is absent or malformed. */
export function remoteSpanContext(headers: TraceHeaders): SpanContext | undefined {
  const given: unknown = headers.traceparent;
  if (typeof given !== "string" || given.length > 512) return undefined;
  const value = given.trim();
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has exactly four fields; a later version may add fields after them.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  const tracestate = typeof headers.tracestate === "string" ? headers.tracestate.trim() : undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 1,
    isRemote: true,
    ...(tracestate === undefined || tracestate === "" || tracestate.length > 512 ? {} : { traceState: createTraceState(tracestate) }),
  };
}

/** The context a Run's span starts under: the caller's remote span when its headers name a good one, else `fallback`. */
export function parentContext(headers: TraceHeaders | undefined, fallback: Context = ROOT_CONTEXT): Context {
  const remote = headers === undefined ? undefined : remoteSpanContext(headers);
  return remote === undefined ? fallback : trace.setSpanContext(ROOT_CONTEXT, remote);
}

/** The `traceparent` and `tracestate` of a request's headers, when present (the first of repeated ones). */
export function traceHeadersOf(headers: Readonly<Record<string, string | readonly string[] | undefined>>): TraceHeaders {
  const first = (name: string): string | undefined => {
    const value = headers[name];
    return typeof value === "string" ? value : value?.[0];
  };
  const traceparent = first("traceparent");
  const tracestate = first("tracestate");
  return { ...(traceparent === undefined ? {} : { traceparent }), ...(tracestate === undefined ? {} : { tracestate }) };
}
