// A Run that waited in the service's queue says so: with one slot, the second of two Runs waits for
// the first, and its Outcome's queuedMs is that wait, as its record's createdAt and startedAt say it.

import { describe, expect, it } from "vitest";
import { TEST_IMAGE } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";

const service = useTestService("queue-wait", { slots: 1, queueBound: 2, image: TEST_IMAGE });

type RunAnswer = { id: string; state: string; createdAt: string; startedAt?: string; outcome?: { reason: string; queuedMs?: number; durationMs?: number } };

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${service.token()}`, "content-type": "application/json", ...init.headers },
  });

async function submit(prompt: string): Promise<string> {
  const answer = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt }) });
  expect(answer.status).toBe(202);
  return ((await answer.json()) as { id: string }).id;
}

async function ended(id: string): Promise<RunAnswer> {
  for (let i = 0; i < 900; i++) {
    const run = (await (await call(`/v1/runs/${id}`)).json()) as RunAnswer;
    if (run.outcome !== undefined) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Run ${id} did not end`);
}

describe("a Run the service queued", () => {
  it("reports its wait in the queue as its Outcome's queuedMs, as its record's times say it", async () => {
    const first = await submit("first, in the one slot");
    const second = await submit("second, waits for the first");
    const [firstRun, secondRun] = [await ended(first), await ended(second)];
    expect(firstRun.outcome?.reason).toBe("completed");
    expect(secondRun.outcome?.reason).toBe("completed");
    const waitedMs = Date.parse(secondRun.startedAt as string) - Date.parse(secondRun.createdAt);
    console.log(`the second Run waited ${waitedMs} ms for the slot; its Outcome says queuedMs ${secondRun.outcome?.queuedMs}`);
    // It waited for a whole Run (a container made, run and removed): surely more than a second.
    expect(waitedMs).toBeGreaterThan(1_000);
    // queuedMs is the service's wait plus any wait for the library's own slot (none here: one slot each).
    expect(secondRun.outcome?.queuedMs).toBeGreaterThanOrEqual(waitedMs);
    expect(secondRun.outcome?.queuedMs).toBeLessThan(waitedMs + 1_000);
    // The first did not wait for the slot: its queuedMs is its few ms from accepted to started.
    const firstWaitedMs = Date.parse(firstRun.startedAt as string) - Date.parse(firstRun.createdAt);
    expect(firstRun.outcome?.queuedMs).toBeGreaterThanOrEqual(firstWaitedMs);
    expect(firstRun.outcome?.queuedMs).toBeLessThan(firstWaitedMs + 1_000);
  }, 180_000);
});
