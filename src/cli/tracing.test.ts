// Traces are wanted only when an OTLP endpoint is named; without one nothing of the SDK is loaded.

import { describe, expect, it } from "vitest";
import { startTracing, tracingWanted } from "./tracing.js";

describe("tracingWanted", () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }, false],
  ])("is %j -> %s", (env, wanted) => {
    expect(tracingWanted(env)).toBe(wanted);
  });

  it("registers nothing without an endpoint", async () => {
    expect(await startTracing({}, () => "0.0.0")).toBeUndefined();
  });
});
