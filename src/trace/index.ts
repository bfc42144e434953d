// The front door of a Run's traces: its spans through `@opentelemetry/api` alone, so they land in
// whatever tracer provider the process registered, and cost nothing when none is.
//
//   const runTrace = startRunTrace(runId, parentContext({ traceparent }, context.active()));
//   await runTrace.step("stage", () => stage());
//   runTrace.end({ ok: true, reason: "completed" });

export type { ModelCallFacts, RunEnd, RunFacts, RunStep, RunTrace } from "./run-trace.js";
export type { TraceHeaders } from "./traceparent.js";
export { startRunTrace } from "./run-trace.js";
export { parentContext, remoteSpanContext, traceHeadersOf } from "./traceparent.js";
