// `agentcage serve` as its own process with OTEL_EXPORTER_OTLP_ENDPOINT at a receiver on loopback
// that decodes the OTLP protobuf with the official definitions: Runs submitted with a traceparent
// over the HTTP API, A2A, MCP and `run --remote` (its TRACEPARENT) are exported, on the service's stop, as children of their callers'
// spans with their steps, and a canary secret in a prompt and the environment is in no byte of what
// was exported; `agentcage run` exports its Run before it exits, under
// the TRACEPARENT it was started with. An endpoint that never answers
// delays neither a Run nor the stop past its bound.

import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { TRACE_FLUSH_AT_EXIT_MS } from "./limits.js";
import { commandEnv, runCommand } from "../../test/support/command.js";
import { startOtlpReceiver } from "../../test/support/otlp-receiver.js";
import { startServeProcess, type ServeProcess } from "../../test/support/serve-process.js";

const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-traces-"));
const TOKEN = "service-traces-test-token-0123456789";
const CANARY = "sk-ant-canary-5e4d3c2b1a09f8e7d6c5";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const A2A_TRACE = "a2a0000000000000000000000000a2a1";
const MCP_TRACE = "3c90000000000000000000000000e3c1";
const OTHER_SPAN = "1111222233334444";
/** The trace a CI job's tracing hands the command in TRACEPARENT (OpenTelemetry's environment carrier). */
const JOB_TRACE = "5a5a0000000000000000000000000b0b";
const REMOTE_TRACE = "6b6b0000000000000000000000000c0c";
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(runtimeDir, { recursive: true, force: true });
});

/** `agentcage serve --stand-in` as its own process, one Run at a time; its URL once it listens, and its exit. */
async function startService(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const started = await startServeProcess({ runtimeDir, token: TOKEN, args: ["--slots", "1"], env });
  children.push(started.child);
  return started;
}

async function call(url: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function ended(url: string, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i++) {
    const run = await call(url, `/v1/runs/${id}`);
    if (["completed", "failed", "cancelled"].includes(run["state"] as string)) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Run ${id} did not end within 60 s`);
}

/** Resolves once no Run of the service is queued or running. */
async function allEnded(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { runs } = (await call(url, "/v1/runs")) as { runs: { state: string }[] };
    if (runs.length > 0 && runs.every((run) => ["completed", "failed", "cancelled"].includes(run.state))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the service's Runs did not end within 60 s");
}

describe("traces of the service", () => {
  it("export a Run as a child of the caller's span, with its steps, flushed at the stop, and no secret", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const service = await startService({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ANTHROPIC_API_KEY: CANARY, AGENTCAGE_TEST_CANARY: CANARY });
      const submitted = await call(
        service.url,
        "/v1/runs",
        { cli: "claude", prompt: `Remember ${CANARY} and say hello` },
        { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      );
      const id = submitted["id"] as string;
      expect(await ended(service.url, id)).toMatchObject({ state: "completed" });
      // A second Run with a malformed traceparent: ignored, a trace of its own, and it still runs.
      const other = await call(service.url, "/v1/runs", { cli: "claude", prompt: "say hello" }, { traceparent: "00-not-a-trace-01" });
      expect(await ended(service.url, other["id"] as string)).toMatchObject({ state: "completed" });
      // Over A2A (JSON-RPC message/send) and MCP (run_agent), each with a traceparent of its own.
      await call(
        service.url,
        "/a2a/jsonrpc",
        {
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "say hello" }] } },
        },
        { traceparent: `00-${A2A_TRACE}-${OTHER_SPAN}-01` },
      );
      const mcp = new Client({ name: "agentcage-traces-test", version: "1" });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL("/mcp", service.url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}`, traceparent: `00-${MCP_TRACE}-${OTHER_SPAN}-01` } },
        }),
      );
      await mcp.callTool({ name: "run_agent", arguments: { cli: "claude", prompt: "say hello" } }, undefined, { timeout: 120_000 });
      await mcp.close();
      // The command with --remote, started inside a job's trace: its submit carries the job's context.
      const remote = await runCommand(
        ["run", "claude", "say hello", "--remote", service.url, "--json"],
        commandEnv({ AGENTCAGE_TOKEN: TOKEN, TRACEPARENT: `00-${REMOTE_TRACE}-${OTHER_SPAN}-01` }),
      );
      expect(remote.code, remote.stderr).toBe(0);
      await allEnded(service.url);
      service.child.kill("SIGTERM");
      expect(await service.exited).toBe(0);

      const spans = receiver.spans();
      const run = spans.find((span) => span.name === "agentcage.run" && span.attributes["agentcage.run.id"] === id);
      expect(run).toBeDefined();
      expect(run?.traceId).toBe(CALLER_TRACE);
      expect(run?.parentSpanId).toBe(CALLER_SPAN);
      expect(run?.attributes).toMatchObject({ "agentcage.cli": "claude", "agentcage.outcome.ok": true, "agentcage.outcome.reason": "completed" });
      const steps = spans.filter((span) => span.parentSpanId === run?.spanId).map((span) => span.name);
      expect(steps).toEqual(
        expect.arrayContaining(["agentcage.queue", "agentcage.stage", "agentcage.create", "agentcage.start", "agentcage.stream", "agentcage.remove"]),
      );
      const otherRun = spans.find((span) => span.name === "agentcage.run" && span.attributes["agentcage.run.id"] === other["id"]);
      expect(otherRun?.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(otherRun?.traceId).not.toBe(CALLER_TRACE);
      expect(otherRun?.parentSpanId).toBe("");
      for (const traceId of [A2A_TRACE, MCP_TRACE, REMOTE_TRACE]) {
        const runs = spans.filter((span) => span.name === "agentcage.run" && span.traceId === traceId);
        expect(runs, traceId).toHaveLength(1);
        expect(runs[0]?.parentSpanId).toBe(OTHER_SPAN);
      }
      const exported = Buffer.concat(receiver.bodies());
      expect(exported.includes(Buffer.from("agentcage.run"))).toBe(true);
      expect(exported.includes(Buffer.from(CANARY))).toBe(false);
      expect(JSON.stringify(spans.map((span) => span.raw))).not.toContain(CANARY);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});

describe("traces of the command", () => {
  it("export agentcage run's Run with its steps before it exits, under the TRACEPARENT it was started with, and no secret", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const env = commandEnv({
        AGENTCAGE_RUNTIME_DIR: join(runtimeDir, "command"),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        AGENTCAGE_TEST_CANARY: CANARY,
        TRACEPARENT: `00-${JOB_TRACE}-${OTHER_SPAN}-01`,
      });
      const done = await runCommand(["run", "claude", `Remember ${CANARY} and say hello`, "--stand-in", "--json"], env);
      expect(done.code, done.stderr).toBe(0);
      const { runId } = JSON.parse(done.stdout) as { runId: string };
      const spans = receiver.spans();
      const run = spans.find((span) => span.name === "agentcage.run");
      expect(run?.attributes).toMatchObject({ "agentcage.run.id": runId, "agentcage.cli": "claude", "agentcage.outcome.ok": true });
      // A child of the job's span that TRACEPARENT named.
      expect([run?.traceId, run?.parentSpanId]).toEqual([JOB_TRACE, OTHER_SPAN]);
      const steps = spans.filter((span) => span.parentSpanId === run?.spanId).map((span) => span.name);
      expect(steps).toEqual(expect.arrayContaining(["agentcage.stage", "agentcage.create", "agentcage.start", "agentcage.stream", "agentcage.remove"]));
      expect(Buffer.concat(receiver.bodies()).includes(Buffer.from(CANARY))).toBe(false);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});

describe("traces of a Run under the model policy", () => {
  it("carry each call the egress proxy forwarded as a model_call child of the Run's span", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const env = commandEnv({
        AGENTCAGE_RUNTIME_DIR: join(runtimeDir, "model"),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        AGENTCAGE_TEST_CANARY: CANARY,
      });
      const done = await runCommand(["run", "claude", `Remember ${CANARY} and say hello`, "--stand-in", "--network-policy", "model", "--json"], env);
      expect(done.code, done.stderr).toBe(0);
      const { runId } = JSON.parse(done.stdout) as { runId: string };
      const spans = receiver.spans();
      const run = spans.find((span) => span.name === "agentcage.run");
      expect(run?.attributes).toMatchObject({ "agentcage.run.id": runId, "agentcage.network.policy": "model", "agentcage.outcome.ok": true });
      const calls = spans.filter((span) => span.name === "agentcage.model_call" && span.parentSpanId === run?.spanId);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls[0]?.attributes["http.response.status_code"]).toBe(200);
      expect(Buffer.concat(receiver.bodies()).includes(Buffer.from(CANARY))).toBe(false);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});

describe("traces to an endpoint that never answers", () => {
  it("delay neither the Run nor the service's stop past the flush bound", async () => {
    // Takes connections and never says a word.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      // A timeout asked of a minute: the export is still given up within the bounds below.
      const service = await startService({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_TIMEOUT: "60000" });
      const began = Date.now();
      const submitted = await call(service.url, "/v1/runs", { cli: "claude", prompt: "say hello" }, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
      expect(await ended(service.url, submitted["id"] as string)).toMatchObject({ state: "completed", outcome: { ok: true } });
      const runMs = Date.now() - began;
      const stopping = Date.now();
      service.child.kill("SIGTERM");
      expect(await service.exited).toBe(0);
      // Measured idle: the stop ~3.1 s (the flush bound, TRACE_FLUSH_AT_EXIT_MS), the Run ~0.8 s; 3x allowed. A Run that
      // waited on its spans' export would take the export's timeout (TRACE_EXPORT_TIMEOUT_MS, 5 s) more.
      expect(Date.now() - stopping).toBeLessThan(3 * (TRACE_FLUSH_AT_EXIT_MS + 200));
      expect(runMs).toBeLessThan(4_000);
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  }, 180_000);
});
