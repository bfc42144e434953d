// One process of store-history.ts over one runtime directory. `build`: a history of N Runs written
// through the file store as the service writes them (create, starting, running, a few events, the
// Outcome, the end), with its marker last. `full` / `startup`: createRunService over the file store and
// a stub runner, recover() as serve's start calls it, then (full) the requests a list, a usage query and
// a submit make, each timed alone; prints one JSON line. Every Run it submits it removes again.

import { randomBytes, randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pLimit from "p-limit";
import type { AgentOutcome, AgentRunner } from "../src/index.js";
import type { RunRecord, RunService, RunState, RunStore, ServiceRunRequest } from "../src/server/runs/index.js";
import { HISTORY_DAYS, HISTORY_FORMAT, HISTORY_MARKER, type History, type ProbeResult } from "./store-history-format.js";

type RunsModule = typeof import("../src/server/runs/index.js");

/** What the stub runner's Runs end with: ok at once, with usage. */
function outcomeOf(runId: string): AgentOutcome {
  return {
    runId,
    ok: true,
    reason: "completed",
    durationMs: 1,
    stdoutBytes: 10,
    stderrBytes: 0,
    stderr: "",
    credential: "api_key",
    cli: "claude",
    result: { ok: true, reason: "completed", text: "ok", usage: { inputTokens: 10, outputTokens: 2 }, costUsd: 0.0001 },
  } as AgentOutcome;
}

const stubRunner = {
  run: async (_request: unknown, _prompt: string, options?: { runId?: string; onEvent?: (event: unknown) => void }) => {
    options?.onEvent?.({ type: "assistant_text", text: "ok" });
    return outcomeOf(options?.runId ?? "");
  },
  holdSession: () => () => undefined,
} as unknown as AgentRunner;

const PROBE_LABEL = ["probe", "submit"] as const;
const DAY_MS = 86_400_000;
const TENANTS = 10;
/** Runs written at once while a history is built. */
const BUILD_AT_ONCE = 32;
const PROMPT =
  "Read the failing test in test/parse.test.ts, find why the parser drops the last line of a stream that ends without a newline, fix it at its cause, and run the tests. ".repeat(
    2,
  );
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

/** One Run of a history, written as the service writes one: its record, request and events, its Outcome, its end. */
async function writeRun(store: RunStore, createdMs: number): Promise<string> {
  const id = randomBytes(8).toString("hex");
  const draw = Math.random();
  const state: RunState = draw < 0.85 ? "completed" : draw < 0.95 ? "failed" : "cancelled";
  const cli = Math.random() < 0.7 ? "claude" : "codex";
  const tenant = `tenant-${Math.floor(Math.random() * TENANTS)}`;
  const labels = { team: pick(["t0", "t1", "t2", "t3", "t4"]), env: pick(["prod", "staging"]) };
  const startedMs = createdMs + 200 + Math.floor(Math.random() * 2000);
  const durationMs = 5_000 + Math.floor(Math.random() * 115_000);
  const iso = (ms: number) => new Date(ms).toISOString();
  const record: RunRecord = { id, tenant, key: `ak_${tenant}`, state: "queued", createdAt: iso(createdMs), cli, labels };
  let eventId = 0;
  const event = (type: string, data: unknown) => store.appendEvents(id, [{ id: ++eventId, type, data }]);
  await store.create(record, { cli, prompt: PROMPT, labels });
  await event("state", { state: "queued" });
  const starting: RunRecord = { ...record, state: "starting", startedAt: iso(startedMs) };
  await store.update(starting);
  await event("state", { state: "starting" });
  await store.update({ ...starting, state: "running" });
  await event("state", { state: "running" });
  await event("agent", { type: "session_started", sessionId: randomUUID(), model: "model-1" });
  await event("agent", { type: "tool_use", name: "Bash", input: { command: "npm test" } });
  await event("agent", { type: "assistant_text", text: "The parser kept the last line back; it now flushes at the end of the stream." });
  const usage = { inputTokens: 1000 + Math.floor(Math.random() * 50_000), outputTokens: 100 + Math.floor(Math.random() * 5000) };
  const costUsd = Math.round(usage.inputTokens * 0.3 + usage.outputTokens * 1.5) / 100_000;
  const reason = state === "completed" ? "completed" : state === "failed" ? "timeout" : "cancelled";
  const outcome = {
    runId: id,
    ok: state === "completed",
    reason,
    durationMs,
    stdoutBytes: 20_000,
    stderrBytes: 0,
    stderr: "",
    credential: "api_key",
    cli,
    result: {
      ok: state === "completed",
      reason: state === "completed" ? "success" : "no_result",
      text: "Fixed.",
      sessionId: randomUUID(),
      usage,
      costUsd,
      model: "model-1",
      numTurns: 4,
    },
  };
  await store.saveOutcome(id, outcome);
  await store.update({ ...starting, state, endedAt: iso(startedMs + durationMs), reason, durationMs, usage: { ...usage, costUsd } });
  await event("state", { state });
  await event("end", outcome);
  return id;
}

/** Writes a history of `size` Runs, created one after another over HISTORY_DAYS up to an hour ago, then its marker. */
async function build(runs: RunsModule, runtimeDir: string, size: number): Promise<void> {
  const began = performance.now();
  const { store } = runs.fileRuns(runtimeDir);
  await store.prepare();
  const last = Date.now() - 3_600_000;
  const step = (HISTORY_DAYS * DAY_MS) / Math.max(size, 1);
  const ids: string[] = [];
  const limit = pLimit(BUILD_AT_ONCE);
  let done = 0;
  await Promise.all(
    Array.from({ length: size }, (_, at) =>
      limit(async () => {
        ids[at] = await writeRun(store, last - (size - at) * step);
        done += 1;
        if (done % 10_000 === 0) console.error(`  ${done} of ${size} Runs written (${((performance.now() - began) / 1000).toFixed(0)} s)`);
      }),
    ),
  );
  const history: History = {
    format: HISTORY_FORMAT,
    runs: size,
    middle: ids[Math.floor(size / 2)] ?? "",
    builtAt: new Date().toISOString(),
    buildSeconds: (performance.now() - began) / 1000,
  };
  await writeFile(join(runtimeDir, HISTORY_MARKER), `${JSON.stringify(history)}\n`);
}
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function timed(samples: Map<string, number[]>, name: string, work: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await work();
  const took = performance.now() - started;
  samples.set(name, [...(samples.get(name) ?? []), took]);
}

/** Removes the Runs an interrupted probe submitted and did not remove. */
async function removeProbeRuns(service: RunService): Promise<void> {
  for (;;) {
    const { records } = await service.page({ labels: [PROBE_LABEL], limit: 100 });
    if (records.length === 0) return;
    for (const record of records) await service.remove(record.id);
  }
}

async function main(): Promise<void> {
  const [runtimeDir, mode, middle, queriesText, submitsText, builtAt] = process.argv.slice(2);
  if (runtimeDir === undefined || (mode !== "full" && mode !== "startup" && mode !== "build"))
    throw new Error("usage: store-probe.js <runtimeDir> build <size> | full <middleId> <queries> <submits> <builtAt> | startup");
  const code = process.env["BENCH_STORE_CODE"] ?? new URL("../src/server/runs/index.js", import.meta.url).href;
  const recoverStarted = performance.now();
  const runs = (await import(code)) as RunsModule;
  // The event loop empties once the store's last write (a compaction of its index too) is done: then the process ends.
  if (mode === "build") return build(runs, runtimeDir, Number(middle));
  const importedAt = performance.now();
  const service = runs.createRunService({
    runner: stubRunner,
    ...runs.fileRuns(runtimeDir),
    slots: 1,
    queueBound: 1000,
    // A spend quota, so that each submit asks the store what its tenant spent today, as serve's does with one.
    quotasOf: () => ({ maxRunning: 1, maxQueued: 1000, dailySpendUsd: 1_000_000 }),
  });
  await service.recover();
  const recovered = performance.now();
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const memory = process.memoryUsage();
  const samples = new Map<string, number[]>();
  if (mode === "full") {
    await removeProbeRuns(service);
    const queries = Number(queriesText ?? 200);
    // A week back from the history's end, whenever it was written: from that hour (its first hour walked Run by Run), and from that day's midnight UTC (whole days, summed once).
    const since = Date.parse(builtAt ?? "") - 7 * DAY_MS;
    if (Number.isNaN(since)) throw new Error(`builtAt ${JSON.stringify(builtAt)} is not a date and time`);
    const midnight = Math.floor(since / DAY_MS) * DAY_MS;
    for (let at = 0; at < queries; at += 1) {
      await timed(samples, "first page", () => service.page({ limit: 50 }));
      // As GET /v1/runs?cursor= does: the cursor's Run, then the page after it.
      if (middle !== undefined && middle !== "")
        await timed(samples, "middle page", async () => {
          const after = await service.get(middle);
          if (after === undefined) throw new Error(`the middle Run ${middle} is not in ${runtimeDir}`);
          return service.page({ after, limit: 50 });
        });
      await timed(samples, "state=failed", () => service.page({ state: "failed", limit: 50 }));
      await timed(samples, "label team=t2", () => service.page({ labels: [["team", "t2"]], limit: 50 }));
      await timed(samples, "tenant tenant-3", () => service.page({ tenant: "tenant-3", limit: 50 }));
      await timed(samples, "usage, whole days", () => service.usage(midnight));
      await timed(samples, "usage, part day", () => service.usage(since));
    }
    const submitted: string[] = [];
    const request: ServiceRunRequest = { cli: "claude", prompt: "Say ok.", labels: { [PROBE_LABEL[0]]: PROBE_LABEL[1] } };
    for (let at = 0; at < Number(submitsText ?? 50); at += 1) {
      let id = "";
      await timed(samples, "submit", async () => {
        const answer = await service.submit(request, undefined, undefined, { tenant: "tenant-0", scope: "runs:write", key: "bench" });
        if (typeof answer === "string" || !("record" in answer)) throw new Error(`a submit was answered ${JSON.stringify(answer)}`);
        id = answer.record.id;
      });
      submitted.push(id);
      // The next submit is timed alone: this one's Run ends first.
      while (service.held(id) !== undefined) await sleep(1);
    }
    for (const id of submitted) await service.remove(id);
  }
  const result: ProbeResult = {
    startupMs: recovered,
    recoverMs: recovered - importedAt,
    importMs: importedAt - recoverStarted,
    heapBytes: memory.heapUsed,
    rssBytes: memory.rss,
    samples: Object.fromEntries(samples),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => undefined,
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
