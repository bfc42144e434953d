// The service over real HTTP on loopback, with real Runs of the real claude and codex CLIs against
// the stand-in model: access, limits, a Run's events live and resumed after a disconnect exactly
// once, cancel that answers in seconds and leaves no container, idempotent submits, the OpenAPI document.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { capturingLogger, containersOfRun, docker } from "../../../test/support/engine.js";
import { serve } from "../index.js";
import { useTestService } from "../../../test/support/service.js";

const service = useTestService("serve", { slots: 2, queueBound: 4 });
const runtimeDir = service.runtimeDir;

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${service.token()}`, "content-type": "application/json", ...init.headers },
  });

type SseEvent = { id?: number; event: string; data: unknown };

/** Reads an event stream until it closes, or until `stopAfter` events with an id were read. */
async function readEvents(path: string, headers: Record<string, string> = {}, stopAfter = Number.POSITIVE_INFINITY): Promise<SseEvent[]> {
  const controller = new AbortController();
  const response = await call(path, { headers, signal: controller.signal });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const events: SseEvent[] = [];
  let buffered = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n\n")) !== -1) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (block.startsWith(":")) continue;
        const fields = Object.fromEntries(block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]));
        events.push({
          ...(fields["id"] === undefined ? {} : { id: Number(fields["id"]) }),
          event: fields["event"] ?? "message",
          data: JSON.parse(fields["data"] ?? "null"),
        });
        if (events.filter((e) => e.id !== undefined).length >= stopAfter) {
          controller.abort();
          return events;
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  return events;
}

describe("agentcage serve, over HTTP", () => {
  it("refuses a request without the token, and an oversized body, in its own words", async () => {
    const anonymous = await fetch(`${service.running().url}/v1/runs`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: "unauthorized" });
    expect((await fetch(`${service.running().url}/healthz`)).status).toBe(200);
    const big = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "x".repeat(2 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
    const unknown = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "hi", temperature: 2 }) });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()) as { message: string }).toMatchObject({ message: expect.stringContaining("temperature") });
  });

  for (const cli of ["claude", "codex"] as const) {
    it(`runs a ${cli} Run, streams its events live to one end event, and replays after a disconnect exactly once`, async () => {
      const submitted = await call("/v1/runs", {
        method: "POST",
        body: JSON.stringify({ cli, prompt: "What is the capital of France?", labels: { suite: "serve" } }),
      });
      expect(submitted.status).toBe(202);
      const run = (await submitted.json()) as { id: string; state: string };
      expect(["queued", "starting"]).toContain(run.state);

      const all = await readEvents(`/v1/runs/${run.id}/events`);
      expect(all[0]?.event).toBe("snapshot");
      const numbered = all.filter((e) => e.id !== undefined);
      expect(numbered.map((e) => e.id)).toEqual(numbered.map((_, i) => i + 1));
      expect(numbered.at(-1)).toMatchObject({ event: "end", data: { ok: true, reason: "completed", cli } });
      expect(numbered.filter((e) => e.event === "end")).toHaveLength(1);
      expect(numbered.some((e) => e.event === "agent" && (e.data as { type: string }).type === "assistant_text")).toBe(true);

      // A client that saw events 1..2 reconnects: it gets 3.. exactly once, then the end.
      const resumed = await readEvents(`/v1/runs/${run.id}/events`, { "last-event-id": "2" });
      expect(resumed.filter((e) => e.id !== undefined).map((e) => e.id)).toEqual(numbered.slice(2).map((e) => e.id));
      const viaQuery = await readEvents(`/v1/runs/${run.id}/events?after=${numbered.length - 1}`);
      expect(viaQuery.filter((e) => e.id !== undefined).map((e) => e.event)).toEqual(["end"]);

      const final = (await (await call(`/v1/runs/${run.id}`)).json()) as { state: string; outcome: { runId: string } };
      expect(final).toMatchObject({ state: "completed", outcome: { ok: true } });
      expect(containersOfRun(final.outcome.runId)).toEqual([]);
      const listed = (await (await call("/v1/runs?label=suite%3Dserve&state=completed")).json()) as { runs: Array<{ id: string }> };
      expect(listed.runs.map((r) => r.id)).toContain(run.id);
    }, 90_000);
  }

  it("answers an EventSource that reconnects after the end 204, and ?after= past it with the end again, closing the stream", async () => {
    const run = (await (
      await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?" }) })
    ).json()) as { id: string };
    const all = await readEvents(`/v1/runs/${run.id}/events`);
    const end = all.find((e) => e.event === "end") as SseEvent;
    expect(end.id).toBeGreaterThan(1);
    // 204 is what makes an EventSource stop reconnecting (the SSE standard), at the end's id or past it.
    for (const lastEventId of [end.id as number, (end.id as number) + 3]) {
      const reconnect = await call(`/v1/runs/${run.id}/events`, { headers: { "last-event-id": String(lastEventId) } });
      expect(reconnect.status).toBe(204);
    }
    // Before the end, the same header replays what follows it.
    expect((await readEvents(`/v1/runs/${run.id}/events`, { "last-event-id": String((end.id as number) - 1) })).map((e) => e.event)).toEqual([
      "snapshot",
      "end",
    ]);
    for (const [path, headers] of [[`/v1/runs/${run.id}/events?after=${(end.id as number) + 5}`, {}]] as const) {
      const started = performance.now();
      const again = await Promise.race([readEvents(path, headers), new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), 10_000))]);
      expect(again).not.toBe("still open");
      expect(performance.now() - started).toBeLessThan(3_000);
      expect((again as SseEvent[]).map((e) => e.event)).toEqual(["snapshot", "end"]);
      expect((again as SseEvent[])[0]?.data).toMatchObject({ state: "completed" });
      expect((again as SseEvent[])[1]).toEqual(end);
    }
  }, 90_000);

  it("cancels a Run whose model never answers within seconds, leaving no container, and changes nothing on a second cancel", async () => {
    // The stand-in's `hang` scenario: the model accepts the request and never answers.
    const submitted = await call("/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "claude", prompt: "[stand-in:hang] answer slowly", timeoutSeconds: 600 }),
    });
    const run = (await submitted.json()) as { id: string };
    await readEvents(`/v1/runs/${run.id}/events`, {}, 3); // queued, starting, running
    const started = performance.now();
    const cancelled = (await (await call(`/v1/runs/${run.id}/cancel`, { method: "POST" })).json()) as {
      state: string;
      outcome: { runId: string; reason: string };
    };
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(cancelled).toMatchObject({ state: "cancelled", outcome: { reason: "cancelled" } });
    expect(containersOfRun(cancelled.outcome.runId)).toEqual([]);
    const again = (await (await call(`/v1/runs/${run.id}/cancel`, { method: "POST" })).json()) as { state: string };
    expect(again.state).toBe("cancelled");
  }, 90_000);

  it("answers the same Run for the same Idempotency-Key, and 429 past the queue bound", async () => {
    const body = JSON.stringify({ cli: "claude", prompt: "once" });
    const first = await call("/v1/runs", { method: "POST", body, headers: { "idempotency-key": "k-1" } });
    const second = await call("/v1/runs", { method: "POST", body, headers: { "idempotency-key": "k-1" } });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    const made = ((await first.json()) as { id: string }).id;
    expect(((await second.json()) as { id: string }).id).toBe(made);
    // The same key with another request is refused, naming the key and the Run it made.
    const other = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "twice" }), headers: { "idempotency-key": "k-1" } });
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({
      error: "idempotency_key_reused",
      message: `Idempotency-Key "k-1" was already used for Run ${made} with a different request; send that same request to get that Run again, or a new key for a new Run`,
    });
    const answers = await Promise.all(Array.from({ length: 12 }, () => call("/v1/runs", { method: "POST", body })));
    const statuses = answers.map((a) => a.status);
    expect(statuses).toContain(429);
    expect(answers.find((a) => a.status === 429)?.headers.get("retry-after")).toBe("5");
  }, 120_000);

  it("counts Runs by end reason, tokens and durations in Prometheus text at /metrics, behind the token", async () => {
    expect((await fetch(`${service.running().url}/metrics`)).status).toBe(401);
    const text = await (await call("/metrics")).text();
    expect(text).toMatch(/^agentcage_runs_total\{cli="claude",reason="completed",tenant="operator"\} [1-9]/m);
    expect(text).toMatch(/^agentcage_tokens_total\{cli="codex",direction="output",tenant="operator"\} [1-9]/m);
    expect(text).toContain("agentcage_run_duration_seconds_bucket");
    expect(text).toMatch(/^agentcage_queue_depth\{tenant="operator"\} \d+/m);
  });

  it("refuses a port in use in its own words and leaves no stand-in behind", async () => {
    const standIns = () =>
      docker("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-stand-in", "--filter", `label=agentcage.pid=${process.pid}`)
        .split("\n")
        .filter((id) => id !== "");
    const before = standIns().length;
    const port = Number(new URL(service.running().url).port);
    await expect(serve({ runtimeDir: join(runtimeDir, "second"), port, standIn: true, logger: capturingLogger().logger, environment: {} })).rejects.toThrow(
      `--port ${port} on 127.0.0.1 is already in use; pick another with --port, or --port 0 for a free one`,
    );
    expect(standIns()).toHaveLength(before);
  }, 60_000);

  it("serves an OpenAPI 3.1 document made from the request schemas", async () => {
    const document = (await (await call("/openapi.json")).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/v1/runs", "/v1/runs/{id}", "/v1/runs/{id}/cancel", "/v1/runs/{id}/events"]));
    expect(JSON.stringify(document.paths["/v1/runs"])).toContain("maxTurns");
  });

  it("says to a probe without a token that it is ready, and nothing more: the checks and counts are the token's, at /v1/service", async () => {
    const probe = await fetch(`${service.running().url}/readyz`);
    expect(probe.status).toBe(200);
    expect(await probe.json()).toEqual({ ready: true });
    expect((await fetch(`${service.running().url}/v1/service`)).status).toBe(401);
    const status = (await (await call("/v1/service")).json()) as Record<string, unknown>;
    expect(status).toMatchObject({
      ready: true,
      checks: { engine: true, image: true, credentials: { claude: "api_key", codex: "api_key" } },
      slots: { total: 2, running: expect.any(Number), queued: expect.any(Number) },
    });
    expect(JSON.stringify(status)).not.toContain("sk-stand-in");
  });
});
