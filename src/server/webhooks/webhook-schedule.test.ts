// When an undelivered webhook is tried again: the default waits grow from seconds to hours, each
// spread by at most a fifth either way, and no attempt starts past a day after the event; and what
// a Run's deliveries.jsonl says is still owed after a restart.

import { describe, expect, it } from "vitest";
import type { StoredDelivery } from "../runs/index.js";
import { DEFAULT_RETRY_SCHEDULE, nextAttemptDelay } from "./webhook-schedule.js";
import { stillOwed } from "./webhooks.js";

const HOUR = 3_600_000;

describe("nextAttemptDelay", () => {
  it("waits 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then 8 h again, without jitter in the middle", () => {
    const middle = () => 0.5;
    let elapsed = 0;
    const waits: number[] = [];
    for (let made = 1; ; made++) {
      const wait = nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, made, elapsed, middle);
      if (wait === undefined) break;
      waits.push(wait);
      elapsed += wait;
    }
    expect(waits).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 8 * HOUR]);
    // The next would start past the day.
    expect(elapsed + 8 * HOUR).toBeGreaterThan(DEFAULT_RETRY_SCHEDULE.boundMs);
  });

  it("spreads each wait by at most a fifth either way", () => {
    expect(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, 2, 0, () => 0)).toBe(24_000);
    expect(nextAttemptDelay(DEFAULT_RETRY_SCHEDULE, 2, 0, () => 0.999_999)).toBe(36_000);
  });

  it("gives up when the attempt would start past the bound", () => {
    expect(nextAttemptDelay({ delaysMs: [100], boundMs: 1_000, jitter: 0 }, 5, 950)).toBeUndefined();
    expect(nextAttemptDelay({ delaysMs: [100], boundMs: 1_000, jitter: 0 }, 5, 900)).toBe(100);
  });
});

describe("stillOwed", () => {
  const owed = (webhookId: string, at: string): StoredDelivery => ({
    kind: "owed",
    webhookId,
    type: "run.finished",
    at,
    url: "https://hooks.example.com/",
    payload: "{}",
  });
  const attempt = (webhookId: string, attempt: number, fields: Partial<StoredDelivery>): StoredDelivery => ({
    kind: "attempt",
    webhookId,
    type: "run.finished",
    at: "2030-01-01T00:00:00.000Z",
    attempt,
    delivered: false,
    ...fields,
  });

  it("keeps what was owed and never attempted, or is waiting for its next attempt; drops what was delivered, given up or abandoned", () => {
    const lines = [
      owed("never", "2030-01-01T00:00:00.000Z"),
      owed("waiting", "2030-01-01T00:00:00.000Z"),
      attempt("waiting", 1, { status: 500, nextAttemptAt: "2030-01-01T00:00:05.000Z" }),
      owed("delivered", "2030-01-01T00:00:00.000Z"),
      attempt("delivered", 1, { status: 500, nextAttemptAt: "2030-01-01T00:00:05.000Z" }),
      attempt("delivered", 2, { status: 200, delivered: true }),
      owed("given-up", "2030-01-01T00:00:00.000Z"),
      attempt("given-up", 1, { error: "ECONNREFUSED" }),
      owed("abandoned", "2030-01-01T00:00:00.000Z"),
      { kind: "abandoned", webhookId: "abandoned", type: "run.finished", at: "2030-01-02T00:00:00.000Z" } as const,
    ];
    expect(stillOwed(lines).map(({ webhookId, attempts, nextAttemptAt }) => ({ webhookId, attempts, nextAttemptAt }))).toEqual([
      { webhookId: "never", attempts: 0, nextAttemptAt: Date.parse("2030-01-01T00:00:00.000Z") },
      { webhookId: "waiting", attempts: 1, nextAttemptAt: Date.parse("2030-01-01T00:00:05.000Z") },
    ]);
  });
});
