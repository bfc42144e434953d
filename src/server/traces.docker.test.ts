// `agentcage serve` as its own process with OTEL_EXPORTER_OTLP_ENDPOINT at a receiver on loopback
// that decodes the OTLP protobuf with the official definitions: a Run submitted over real HTTP with a
// traceparent is exported, on the service's stop, as a child of the caller's span with its steps,
// and a canary secret in its prompt and environment is in no byte of what was exported.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAIN } from "../../test/support/command.js";
import { startOtlpReceiver } from "../../test/support/otlp-receiver.js";

const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-traces-"));
const TOKEN = "service-traces-test-token-0123456789";
const CANARY = "sk-ant-canary-5e4d3c2b1a09f8e7d6c5";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(runtimeDir, { recursive: true, force: true });
});

/** `agentcage serve --stand-in` as its own process; its URL once it listens, and its exit. */
function startService(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--runtime-dir", runtimeDir, "--slots", "1", "--stand-in"], {
    env: { ...process.env, AGENTCAGE_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let text = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/[^\s;]+)/.exec(text)?.[1];
      if (url !== undefined) resolve({ url, child, exited });
    });
    void exited.then((code) => reject(new Error(`agentcage serve exited with ${code}: ${text.slice(-2000)}`)));
  });
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
      const exported = Buffer.concat(receiver.bodies());
      expect(exported.includes(Buffer.from("agentcage.run"))).toBe(true);
      expect(exported.includes(Buffer.from(CANARY))).toBe(false);
      expect(JSON.stringify(spans.map((span) => span.raw))).not.toContain(CANARY);
    } finally {
      await receiver.close();
    }
  }, 180_000);
});
