// The metrics as each caller reads them: the admin scope every tenant's series, any other key its own
// tenant's only, with no other tenant's name anywhere, even one hidden in another label's value.

import { describe, expect, it } from "vitest";
import { OPERATOR, type Caller } from "./caller.js";
import { createRunMetrics, seriesFor } from "./metrics.js";

const tenantB: Caller = { tenant: "b", scope: "runs:write", key: "0123456789ab" };

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
  let text = "";
  const app = { get: (_path: string, _options: unknown, handler: (request: unknown, reply: unknown) => Promise<unknown>) => void (handlerOf = handler) };
  let handlerOf: ((request: unknown, reply: unknown) => Promise<unknown>) | undefined;
  metrics.register(app as never);
  const reply = { type: () => reply, send: (body: string) => void (text = body) };
  await handlerOf?.({ caller: OPERATOR }, reply);
  return text;
}

describe("/metrics by tenant", () => {
  it("gives the admin scope every tenant's series, each labelled with its tenant", async () => {
    const text = await scraped();
    expect(text).toMatch(/^agentcage_runs_total\{cli="claude",reason="completed",tenant="a"\} 1$/m);
    expect(text).toMatch(/^agentcage_runs_total\{cli="codex",reason="failed",tenant="b"\} 1$/m);
    expect(text).toMatch(/^agentcage_queue_depth\{tenant="a"\} 2$/m);
    expect(text).toMatch(/^agentcage_runs_running\{tenant="b"\} 1$/m);
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
