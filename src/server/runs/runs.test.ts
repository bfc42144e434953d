// The service's Runs over a scripted agent runner (the engine's side is the engine tests'): what a
// cancel leaves in a Run's state, events, record and metrics, and what an Idempotency-Key answers.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../agents/index.js";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../../runner/index.js";
import { OPERATOR } from "../caller.js";
import { createRunService, type Admitted, type KeyReused, type Refused, type Unserved, type RunEnd, type ServiceRunRequest } from "./runs.js";
import { fileRuns } from "./store-files.js";
import { createMemoryRunStore } from "./store-memory.js";
import { createFileRunFiles } from "./store-files.js";
import type { RunRecord, RunStore } from "./store.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-runs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const cancelledOutcome = (): AgentOutcome => ({
  runId: "r",
  ok: false,
  reason: "cancelled",
  error: "the Run was cancelled by the caller",
  durationMs: 5,
  stdoutBytes: 0,
  stderrBytes: 0,
  stderr: "",
  credential: "api_key",
});

/**
 * A runner whose Runs go on until they are cancelled; a cancelled one resolves, and then its reader
 * hands over what it had queued, as the library's may (stopping never waits on the reader).
 */
function untilCancelled(late: AgentEvent[] = [{ type: "assistant_text", text: "printed as it was stopped" }]) {
  const started: string[] = [];
  const runner = {
    run: (_request: unknown, prompt: string, options: AgentRunOptions) => {
      started.push(prompt);
      return new Promise<AgentOutcome>((resolve) => {
        const cancelled = () => {
          resolve(cancelledOutcome());
          setTimeout(() => {
            for (const event of late) options.onEvent?.(event);
          }, 30);
        };
        // Cancelled before its Run got here (while the service wrote its record), as the library's run() checks too.
        if (options.signal?.aborted === true) cancelled();
        else options.signal?.addEventListener("abort", cancelled);
      });
    },
  } as unknown as AgentRunner;
  return { runner, started };
}

function serviceOver(runner: AgentRunner, slots = 1, sessions = false) {
  const runtimeDir = mkdtempSync(join(scratch, "rt-"));
  const ended: RunEnd[] = [];
  const runs = fileRuns(runtimeDir);
  const service = createRunService({ runner, ...runs, slots, queueBound: 10, sessions, onEnd: (_request, end) => void ended.push(end) });
  return { service, ended, store: runs.store, runtimeDir };
}

const ask = (prompt: string, more: Partial<ServiceRunRequest> = {}) => ({ cli: "claude", prompt, ...more }) as ServiceRunRequest;
/** The Run a submit made or answered; anything else fails the test. */
function made(submitted: Admitted | KeyReused | Refused | Unserved): Admitted {
  if (typeof submitted === "string" || !("record" in submitted)) throw new Error(`the submit was answered ${JSON.stringify(submitted)}`);
  return submitted;
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 100));

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("a cancelled Run", () => {
  it("is cancelled in its state, its events, its record and the metrics, whatever its reader hands over after its Outcome", async () => {
    const { runner, started } = untilCancelled();
    const { service, ended, store } = serviceOver(runner);
    await service.recover();
    const admitted = made(await service.submit(ask("go on")));
    const id = admitted.record.id;
    await until(() => started.length === 1);
    expect((await service.cancel(id))?.state).toBe("cancelled");
    await settled();

    expect((await service.get(id))?.state).toBe("cancelled");
    const events = await service.events(id);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { reason: "cancelled" } });
    expect(events.filter((e) => e.type === "state").at(-1)).toMatchObject({ data: { state: "cancelled" } });
    expect((await store.page({ limit: 100 })).records.map((r) => r.state)).toEqual(["cancelled"]);
    expect(ended.map((e) => e.reason)).toEqual(["cancelled"]);
  });

  it("is told to the metrics as cancelled when it was cancelled while it waited for a slot", async () => {
    const { runner } = untilCancelled([]);
    const { service, ended } = serviceOver(runner, 1);
    await service.recover();
    const first = made(await service.submit(ask("holds the slot")));
    const second = made(await service.submit(ask("waits")));
    expect((await service.get(second.record.id))?.state).toBe("queued");
    expect((await service.cancel(second.record.id))?.state).toBe("cancelled");
    expect(ended).toEqual([expect.objectContaining({ reason: "cancelled", durationMs: 0 })]);
    expect((await service.events(second.record.id)).at(-1)).toMatchObject({ type: "end", data: { ok: false, reason: "cancelled" } });
    await service.cancel(first.record.id);
  });
});

describe("a Run's id", () => {
  it("is the one its library Run takes, and its Outcome's, cancelled while it waited for a slot too", async () => {
    const given: Array<string | undefined> = [];
    const { runner } = untilCancelled([]);
    const naming = {
      ...runner,
      run: (request: unknown, prompt: string, options: AgentRunOptions) => {
        given.push(options.runId);
        return runner.run(request as never, prompt, options);
      },
    };
    const { service } = serviceOver(naming as AgentRunner, 1);
    await service.recover();
    const first = made(await service.submit(ask("holds the slot")));
    const second = made(await service.submit(ask("waits")));
    await until(() => given.length === 1);
    expect(given).toEqual([first.record.id]);
    await service.cancel(second.record.id);
    expect(await service.outcome(second.record.id)).toMatchObject({ reason: "cancelled", runId: second.record.id });
    await service.cancel(first.record.id);
    expect(await service.get(first.record.id)).not.toHaveProperty("runId");
  });
});

describe("a Run that resumes a session", () => {
  it("holds its store from the sweep from its submit until it ends, cancelled in the queue too", async () => {
    const { runner } = untilCancelled([]);
    const held: string[] = [];
    const holding = Object.assign(runner, {
      holdSession: (request: { resumeSession?: string }) => {
        held.push(request.resumeSession ?? "");
        return () => held.splice(held.indexOf(request.resumeSession ?? ""), 1);
      },
    });
    const sessions = "9a1f1c3e-0000-4000-8000-000000000001";
    const { service } = serviceOver(holding, 1, true);
    await service.recover();
    const first = made(await service.submit(ask("holds the slot", { resumeSession: sessions })));
    const second = made(await service.submit(ask("waits", { resumeSession: sessions })));
    const third = made(await service.submit(ask("resumes nothing")));
    expect(held).toEqual([sessions, sessions]);
    await service.cancel(second.record.id);
    expect(held).toEqual([sessions]);
    await service.cancel(third.record.id);
    await service.cancel(first.record.id);
    expect(held).toEqual([]);
  });
});

describe("an Idempotency-Key", () => {
  it("answers the Run it made for the same request, and refuses a different request naming the Run", async () => {
    const { runner } = untilCancelled([]);
    const { service } = serviceOver(runner, 1);
    await service.recover();
    const first = made(await service.submit(ask("once", { labels: { a: "1", b: "2" } }), "k-1"));
    // The same request, its fields in another order, is the same request.
    const again = await service.submit({ labels: { b: "2", a: "1" }, prompt: "once", cli: "claude" } as ServiceRunRequest, "k-1");
    expect(again).toMatchObject({ record: { id: first.record.id }, created: false });
    expect(await service.submit(ask("twice"), "k-1")).toEqual({ reused: first.record });
    expect(await service.submit(ask("once", { labels: { a: "1" } }), "k-1")).toEqual({ reused: first.record });
    expect((await service.page({ limit: 100 })).records).toHaveLength(1);
    await service.cancel(first.record.id);
  });

  it("answers the Run it made after a restart, as the records file it", async () => {
    const { runner } = untilCancelled([]);
    const before = serviceOver(runner, 1);
    await before.service.recover();
    const first = made(await before.service.submit(ask("once"), "k-kept"));
    const after = createRunService({ runner, ...fileRuns(before.runtimeDir), slots: 1, queueBound: 10, sessions: false });
    await after.recover();
    expect(await after.submit(ask("once"), "k-kept")).toMatchObject({ created: false, record: { id: first.record.id } });
    expect(await after.submit(ask("twice"), "k-kept")).toMatchObject({ reused: { id: first.record.id } });
    for (const record of after.live()) await after.cancel(record.id);
    await before.service.cancel(first.record.id);
  });

  it("is left free by a submit that made no Run (a full queue, inputs that failed): the same key makes the Run once it can", async () => {
    const { runner } = untilCancelled([]);
    const runtimeDir = mkdtempSync(join(scratch, "rt-"));
    const service = createRunService({ runner, ...fileRuns(runtimeDir), slots: 1, queueBound: 1, sessions: false });
    await service.recover();
    const holding = made(await service.submit(ask("holds the only place")));
    expect(await service.submit(ask("keyed"), "k-refused")).toBe("queue_full");
    await service.cancel(holding.record.id);
    const failing = async () => {
      throw new Error("the archive was refused");
    };
    await expect(service.submit(ask("keyed"), "k-refused", failing)).rejects.toThrow("the archive was refused");
    const keyed = made(await service.submit(ask("keyed"), "k-refused"));
    expect(keyed.created).toBe(true);
    expect(await service.submit(ask("keyed"), "k-refused")).toMatchObject({ created: false, record: { id: keyed.record.id } });
    await service.cancel(keyed.record.id);
  });
});

describe("the retention of ended Runs' records", () => {
  it("removes, as DELETE does, the Runs that ended before the cutoff, never one that has not ended", async () => {
    const { runner, started } = untilCancelled([]);
    const { service, store } = serviceOver(runner, 2);
    await service.recover();
    const ended = made(await service.submit(ask("ended"), "key-of-ended")).record.id;
    const live = made(await service.submit(ask("still running"))).record.id;
    await until(() => started.length === 2);
    await service.cancel(ended);
    await settled();
    const endedAt = Date.parse((await service.get(ended))?.endedAt ?? "");

    expect(await service.removeEndedBefore(endedAt)).toEqual([]);
    const removed = await service.removeEndedBefore(endedAt + 1);
    expect(removed.map((r) => r.id)).toEqual([ended]);
    expect(await service.get(ended)).toBeUndefined();
    expect((await store.page({ limit: 100 })).records.map((r) => r.id)).toEqual([live]);
    // Its Idempotency-Key names nothing any more: the same key makes a new Run.
    expect(await service.submit(ask("ended"), "key-of-ended")).toMatchObject({ created: true });
    expect(await service.removeEndedBefore(Date.now() + 60_000)).toEqual([]);
    for (const record of service.live()) await service.cancel(record.id);
  });
});

describe("a queued Run's trace context", () => {
  it("outlives a restart: the Run that starts after it is still traced as a child of its caller's span", async () => {
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const { runner } = untilCancelled([]);
    const before = serviceOver(runner, 1);
    await before.service.recover();
    made(await before.service.submit(ask("holds the slot")));
    const queued = made(await before.service.submit(ask("waits, traced"), undefined, undefined, { ...OPERATOR, trace: { traceparent, tracestate: "a=1" } }));
    // The next start over the same directory (the first service's process gone, as after a crash).
    const contexts: unknown[] = [];
    const tracing = {
      run: async (_request: unknown, _prompt: string, options: AgentRunOptions) => {
        contexts.push(options.traceContext);
        return { ...cancelledOutcome(), ok: true, reason: "completed" } as unknown as AgentOutcome;
      },
    } as unknown as AgentRunner;
    const after = createRunService({ runner: tracing, ...fileRuns(before.runtimeDir), slots: 1, queueBound: 10, sessions: false });
    await after.recover();
    await until(() => contexts.length === 1);
    expect(contexts[0]).toMatchObject({ traceparent, tracestate: "a=1" });
    expect((await after.get(queued.record.id))?.state).not.toBe("queued");
  });
});

describe("a start over the Runs kept", () => {
  it("reads nothing of a Run that has ended (its events, Outcome, request), only of those it must act on", async () => {
    const store = createMemoryRunStore();
    const ended = Array.from({ length: 50 }, (_, n) => `00000000000001${n.toString(16).padStart(2, "0")}`);
    const at = (n: number) => new Date(Date.parse("2026-12-01T10:00:00.000Z") + n * 1000).toISOString();
    for (const [n, id] of ended.entries()) {
      const queued: RunRecord = { id, tenant: "acme", state: "queued", createdAt: at(n), cli: "claude", labels: {} };
      await store.create(queued, { cli: "claude", prompt: "p" });
      await store.appendEvents(id, [{ id: 1, type: "state", data: { state: "queued" } }]);
      await store.saveOutcome(id, { ok: true, reason: "completed", result: { sessionId: `s-${n}` } });
      await store.update({ ...queued, state: "completed", endedAt: at(n + 1) });
    }
    const waiting = "0000000000000200";
    await store.create({ id: waiting, tenant: "acme", state: "queued", createdAt: at(99), cli: "claude", labels: {} }, { cli: "claude", prompt: "p" });
    await store.appendEvents(waiting, [{ id: 1, type: "state", data: { state: "queued" } }]);
    const read: string[] = [];
    const counted = (name: "events" | "outcome" | "request" | "trace" | "deliveries" | "a2aTask") =>
      (async (id: string) => {
        read.push(`${name} ${id}`);
        return (store[name] as (id: string) => Promise<unknown>)(id);
      }) as never;
    const watched: RunStore = {
      ...store,
      events: counted("events"),
      outcome: counted("outcome"),
      request: counted("request"),
      trace: counted("trace"),
      deliveries: counted("deliveries"),
      a2aTask: counted("a2aTask"),
    };
    const { runner } = untilCancelled([]);
    const service = createRunService({
      runner,
      store: watched,
      files: createFileRunFiles(mkdtempSync(join(scratch, "files-"))),
      slots: 0,
      queueBound: 100,
      sessions: true,
    });
    await service.recover();
    expect(read.filter((one) => !one.endsWith(waiting))).toEqual([]);
    // What it knows of them is still answered: whose session is whose, and the Run itself.
    expect(await service.submit(ask("resumes", { resumeSession: "s-3", cli: "codex" }))).toEqual({
      unserved: expect.stringContaining("is a claude session"),
    });
    expect((await service.get(ended[3] as string))?.state).toBe("completed");
    expect(service.position(waiting)).toBe(1);
  });
});
