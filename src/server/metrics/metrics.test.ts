// The metrics as each caller reads them: the admin scope every tenant's series, any other key its own
// tenant's only, with no other tenant's name anywhere, even one hidden in another label's value.
// With a warm pool, its series, read at each scrape, and none of them without one. What makes the
// service less than it says: how many of each kind hold now and how many began, every kind always there.

import { describe, expect, it } from "vitest";
import { OPERATOR, type Caller } from "../caller.js";
import { pino } from "pino";
import { createDegradations, type PoolStats } from "../../runtime/index.js";
import { createRunMetrics, seriesFor, type RunMetrics } from "./metrics.js";

const tenantB: Caller = { tenant: "b", scope: "runs:write", key: "0123456789ab" };

/** What /metrics answers the admin scope now. */
async function exposition(metrics: RunMetrics): Promise<string> {
  let text = "";
  const app = { get: (_path: string, _options: unknown, handler: (request: unknown, reply: unknown) => Promise<unknown>) => void (handlerOf = handler) };
  let handlerOf: ((request: unknown, reply: unknown) => Promise<unknown>) | undefined;
  metrics.register(app as never);
  const reply = { type: () => reply, send: (body: string) => void (text = body) };
  await handlerOf?.({ caller: OPERATOR }, reply);
  return text;
}

async function scraped(): Promise<string> {
  const metrics = createRunMetrics(
    () =>
      new Map([
        ["a", { queued: 2, running: 1 }],
        ["b", { queued: 0, running: 1 }],
      ]),
  );
  metrics.ended({ tenant: "a", cli: "claude", reason: "completed", durationMs: 1200, queuedMs: 10, inputTokens: 5, outputTokens: 7, costUsd: 0.01 });
  metrics.ended({ tenant: "b", cli: "codex", reason: "failed", durationMs: 300, queuedMs: 0 });
  // A label value that reads like a tenant label must not pass for one.
  metrics.ended({ tenant: "a", cli: 'x",tenant="b', reason: "completed", durationMs: 1, queuedMs: 0 });
  metrics.egressSlow("a");
  metrics.egressSlow("a");
  return exposition(metrics);
}

describe("/metrics by tenant", () => {
  it("gives the admin scope every tenant's series, each labelled with its tenant", async () => {
    const text = await scraped();
    expect(text).toMatch(/^agentcage_runs_total\{cli="claude",reason="completed",tenant="a"\} 1$/m);
    expect(text).toMatch(/^agentcage_runs_total\{cli="codex",reason="failed",tenant="b"\} 1$/m);
    expect(text).toMatch(/^agentcage_queue_depth\{tenant="a"\} 2$/m);
    expect(text).toMatch(/^agentcage_runs_running\{tenant="b"\} 1$/m);
    // A slow proxy's late readings are counted, not taken for a dead one.
    expect(text).toMatch(/^agentcage_egress_slow_readings_total\{tenant="a"\} 2$/m);
  });

  it("gives another key its own tenant's series and the HELP and TYPE lines, nothing of another tenant", async () => {
    const text = seriesFor(tenantB, await scraped());
    const samples = text.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) expect(sample).toMatch(/[{,]tenant="b"\}/);
    expect(text).not.toMatch(/"a"/);
    expect(text).not.toContain("claude");
    expect(text).toContain("# HELP agentcage_queue_depth");
    expect(text).toContain("# TYPE agentcage_tokens_total counter");
    expect(text).toMatch(/^agentcage_runs_running\{tenant="b"\} 1$/m);
  });
});

describe("/metrics with a warm pool", () => {
  const stats: PoolStats = {
    size: 4,
    maxIdleSeconds: 300,
    ready: 3,
    making: 1,
    claimed: 7,
    cold: { empty: 2, "secret files": 1 },
    replaced: 5,
    failures: 1,
    lastFailure: "no such image",
    headStarts: { used: 6, wasted: 1 },
    claimLatencyMs: { count: 7, p50: 12, p99: 40, max: 40 },
  };

  it("reads the pool's gauges and counters at the scrape, and its claim histogram from each claim", async () => {
    const metrics = createRunMetrics(
      () => new Map(),
      () => stats,
    );
    metrics.poolClaimed(12);
    metrics.poolClaimed(40);
    metrics.poolClaimed(3_000);
    const text = await exposition(metrics);
    expect(text).toMatch(/^agentcage_pool_size 4$/m);
    expect(text).toMatch(/^agentcage_pool_ready 3$/m);
    expect(text).toMatch(/^agentcage_pool_making 1$/m);
    expect(text).toMatch(/^agentcage_pool_claimed_total 7$/m);
    expect(text).toMatch(/^agentcage_pool_replaced_total 5$/m);
    expect(text).toMatch(/^agentcage_pool_failures_total 1$/m);
    expect(text).toMatch(/^agentcage_pool_cold_total\{why="empty"\} 2$/m);
    expect(text).toMatch(/^agentcage_pool_head_starts_total\{outcome="used"\} 6$/m);
    expect(text).toMatch(/^agentcage_pool_head_starts_total\{outcome="wasted"\} 1$/m);
    expect(text).toMatch(/^agentcage_pool_cold_total\{why="secret files"\} 1$/m);
    expect(text).toMatch(/^agentcage_pool_claim_seconds_bucket\{le="0.005"\} 0$/m);
    expect(text).toMatch(/^agentcage_pool_claim_seconds_bucket\{le="0.025"\} 1$/m);
    expect(text).toMatch(/^agentcage_pool_claim_seconds_bucket\{le="2"\} 2$/m);
    expect(text).toMatch(/^agentcage_pool_claim_seconds_count 3$/m);
    // Read again, a counter is the pool's count, not the sum of two scrapes.
    expect(await exposition(metrics)).toMatch(/^agentcage_pool_claimed_total 7$/m);
  });

  it("serves no pool series without a pool, and none of their samples to a tenant's key", async () => {
    const without = createRunMetrics(() => new Map());
    without.poolClaimed(12);
    expect(await exposition(without)).not.toContain("agentcage_pool");
    const text = seriesFor(
      tenantB,
      await exposition(
        createRunMetrics(
          () => new Map(),
          () => stats,
        ),
      ),
    );
    expect(text).toContain("# TYPE agentcage_pool_ready gauge");
    expect(text).not.toMatch(/^agentcage_pool_\w+(\{[^}]*\})? /m);
  });
});

describe("/metrics of degradations", () => {
  it("counts each kind holding now and each begun, so one that came and went between two scrapes still shows", async () => {
    const board = createDegradations(pino({ level: "silent" }));
    const metrics = createRunMetrics(() => new Map(), undefined, undefined, board);
    const before = await exposition(metrics);
    for (const kind of ["pool", "run-network-range", "engine", "egress-proxy"]) {
      expect(before).toMatch(new RegExp(`^agentcage_degraded\\{kind="${kind}"\\} 0$`, "m"));
      expect(before).toMatch(new RegExp(`^agentcage_degradations_total\\{kind="${kind}"\\} 0$`, "m"));
    }
    board.raise({ kind: "pool", reason: "cannot fill", fix: "mend it" });
    board.raise({ kind: "engine", subject: "b", reason: "b is gone", fix: "start b" });
    board.raise({ kind: "engine", subject: "c", reason: "c is gone", fix: "start c" });
    board.raise({ kind: "egress-proxy", subject: "b", reason: "its proxy is gone", fix: "see why" });
    board.clear("egress-proxy", "b");
    const text = await exposition(metrics);
    expect(text).toMatch(/^agentcage_degraded\{kind="pool"\} 1$/m);
    expect(text).toMatch(/^agentcage_degraded\{kind="engine"\} 2$/m);
    expect(text).toMatch(/^agentcage_degraded\{kind="egress-proxy"\} 0$/m);
    expect(text).toMatch(/^agentcage_degradations_total\{kind="egress-proxy"\} 1$/m);
    expect(text).toMatch(/^agentcage_degradations_total\{kind="engine"\} 2$/m);
    expect(text).toContain("# TYPE agentcage_degradations_total counter");
    expect(seriesFor(tenantB, text)).not.toMatch(/^agentcage_degrad\w+\{/m);
  });
});
