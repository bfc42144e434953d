import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { summaryLines, NO_PAINT } from "./summary.js";
import { createRunView, wantsLiveView, type ViewStream } from "./view.js";
import { startProgress } from "./progress.js";

function capture(isTTY: boolean): { stream: ViewStream; text: () => string } {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 80 });
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe("which view", () => {
  it("is live only on a terminal without NO_COLOR, CI or a dumb TERM", () => {
    const tty = { isTTY: true, columns: 80 } as ViewStream;
    expect(wantsLiveView(tty, {})).toBe(true);
    expect(wantsLiveView(tty, { NO_COLOR: "1" })).toBe(false);
    expect(wantsLiveView(tty, { CI: "true" })).toBe(false);
    expect(wantsLiveView(tty, { TERM: "dumb" })).toBe(false);
    expect(wantsLiveView(tty, { NO_COLOR: "" })).toBe(true);
    expect(wantsLiveView({ isTTY: false } as ViewStream, {})).toBe(false);
    expect(wantsLiveView({ isTTY: true, columns: 0 } as ViewStream, {})).toBe(false);
  });
});

describe("the plain view", () => {
  it("writes one line per event worth reading and a summary, with no escape code anywhere", () => {
    const out = capture(false);
    let clock = 0;
    const view = createRunView("claude", out.stream, false, () => clock);
    view.note("queued");
    view.note("queued");
    clock = 1500;
    view.event({ type: "init", model: "m-1" });
    view.event({ type: "tool_call", name: "Bash", input: { command: "echo \u001b[31mred" } });
    view.event({ type: "assistant_text", text: "done" });
    view.end({ ok: true, reason: "completed", durationMs: 2000, runId: "r-1" }, ["harvested 1 file (3 bytes) into /o"]);
    const text = out.text();
    expect(text).toContain("[   0.0 s] queued\n[   1.5 s] claude started (m-1)\n[   1.5 s] tool Bash: echo");
    expect(text.match(/queued/g)).toHaveLength(1);
    // What the agent printed cannot drive the terminal: its escape code is written out.
    expect(text).not.toContain("\u001b");
    expect(text).toContain("echo \\x1b[31mred");
    expect(text).toContain("✔ completed in 2.0 s · claude · m-1\n  1 tool call: Bash\n  harvested 1 file (3 bytes) into /o\n  run r-1\n");
  });
});

describe("the summary", () => {
  it("says why a Run failed and offers to resume only a session that was kept", () => {
    const progress = { ...startProgress("codex", 0), sessionId: "s-1" };
    const failed = summaryLines(
      { ok: false, reason: "timeout", error: "the Run timed out after 5 s", durationMs: 5000, result: { reason: "no_result" } },
      progress,
      [],
      NO_PAINT,
    );
    expect(failed.slice(0, 2)).toEqual(["✖ timeout (no_result) after 5.0 s · codex", "  the Run timed out after 5 s"]);
    expect(failed).toContain("  session s-1");
    const kept = summaryLines({ ok: true, reason: "completed", durationMs: 1, session: { id: "s-1", kept: true } }, progress, [], NO_PAINT);
    expect(kept).toContain("  session s-1 (continue it: --resume s-1)");
  });
});

describe("what a Run spent, in the summary", () => {
  const progress = startProgress("codex", 0);
  const cliUsage = { inputTokens: 66, outputTokens: 17, cacheReadTokens: 64, cacheWriteTokens: 0 };

  it("shows one token count and one cost, the egress proxy's, saying it is an estimate when the proxy priced an unknown model at the dearest entry", () => {
    const lines = summaryLines(
      {
        ok: true,
        reason: "completed",
        durationMs: 1000,
        cli: "codex",
        result: { numTurns: 1, usage: { inputTokens: 130, outputTokens: 17, cacheReadTokens: 64, cacheWriteTokens: 0 }, model: "gpt-stand-in" },
        budget: {
          caps: { maxTokens: 1000, maxCostUsd: 1 },
          used: { turns: 1, tokens: 147, cachedTokens: 64, costUsd: 0.0071, costFrom: "dearest_price", wallSeconds: 1 },
        },
        network: { policy: "model", meter: { turns: 1, refused: 0, costUsd: 0.0292, costFrom: "dearest_price", usage: cliUsage } },
      },
      progress,
      [],
      NO_PAINT,
    );
    expect(lines.slice(1, 4)).toEqual([
      "  1 turn · 66 in / 17 out tokens (cache 64 read, 0 written) · $0.0292 estimated (its model is not in the price table: priced at the dearest entry) · from the egress proxy's meter",
      "  budget tokens 83/1,000, $0.0292/$1.00",
      "  network model: 1 model call through the egress proxy",
    ]);
    expect(lines.join("\n")).not.toContain("0.0071");
    expect(lines.join("\n")).not.toContain("130 in");
  });

  it("says the CLI's own figures are its own, and a cost from the price table is priced, not billed", () => {
    const claude = summaryLines(
      { ok: true, reason: "completed", durationMs: 1, cli: "claude", result: { numTurns: 3, usage: cliUsage, costUsd: 0.0175 } },
      startProgress("claude", 0),
      [],
      NO_PAINT,
    );
    expect(claude[1]).toBe("  3 turns · 66 in / 17 out tokens (cache 64 read, 0 written) · $0.0175 · from claude's own output");
    const priced = summaryLines(
      {
        ok: false,
        reason: "budget_exceeded",
        durationMs: 1,
        cli: "claude",
        result: { usage: cliUsage },
        budget: {
          caps: { maxCostUsd: 0.001 },
          exceeded: "maxCostUsd",
          used: { turns: 1, tokens: 83, cachedTokens: 64, costUsd: 0.002, costFrom: "price_table", wallSeconds: 1 },
        },
      },
      startProgress("claude", 0),
      [],
      NO_PAINT,
    );
    expect(priced).toContain("  66 in / 17 out tokens (cache 64 read, 0 written) · $0.0020 priced from the table · from claude's own output");
  });

  it("says a stand-in Run's cost is not real, whoever priced it", () => {
    const own = summaryLines(
      { ok: true, reason: "completed", durationMs: 1, cli: "claude", standIn: true, result: { numTurns: 1, usage: cliUsage, costUsd: 0.0071 } },
      startProgress("claude", 0),
      [],
      NO_PAINT,
    );
    expect(own[1]).toBe(
      "  1 turn · 66 in / 17 out tokens (cache 64 read, 0 written) · $0.0071, not real (the stand-in model's made-up usage) · from claude's own output",
    );
    const metered = summaryLines(
      {
        ok: true,
        reason: "completed",
        durationMs: 1,
        cli: "claude",
        standIn: true,
        network: { policy: "model", meter: { turns: 1, refused: 0, costUsd: 0.0071, costFrom: "price_table", usage: cliUsage } },
      },
      startProgress("claude", 0),
      [],
      NO_PAINT,
    );
    expect(metered[1]).toContain("· $0.0071, not real (the stand-in model's made-up usage) · from the egress proxy's meter");
  });

  it("prices a codex Run's own tokens at the table when it had no budget to count them (codex reports no cost)", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const known = summaryLines({ ok: true, reason: "completed", durationMs: 1, cli: "codex", result: { usage, model: "gpt-5" } }, progress, [], NO_PAINT);
    expect(known[1]).toBe("  1,000,000 in / 100,000 out tokens · $2.25 priced from the table · from codex's own output");
    const unknown = summaryLines(
      { ok: true, reason: "completed", durationMs: 1, cli: "codex", result: { usage, model: "gpt-stand-in" } },
      progress,
      [],
      NO_PAINT,
    );
    expect(unknown[1]).toContain("estimated (its model is not in the price table: priced at the dearest entry)");
  });
});

describe("a Run's error in the summary", () => {
  it.each([
    [
      'input "src/pipe" is not a file, directory or link (a FIFO, socket or device); leave it out with inputs.exclude: ["src/pipe"]',
      '--in: input "src/pipe" is not a file, directory or link (a FIFO, socket or device); leave it out with --exclude src/pipe',
    ],
    ['inputs pass 268435456 bytes (MAX_INPUT_BYTES) at "big.bin"; hand over a smaller tree', "--in: inputs pass 268435456 bytes"],
    [
      'harvestTo "/srv/o" already holds files and the Harvest never deletes what it was not given; pass an empty or new directory, or replaceHarvestTo: true to replace it whole',
      '--out "/srv/o" already holds files and the Harvest never deletes what it was not given; pass an empty or new directory, or --replace to replace it whole',
    ],
    [
      'session "0000" has no kept store of claude in this Staging Directory; pass the sessionId an earlier Outcome of this runner reported, or start a new session',
      '--resume "0000" names no session of claude kept under --runtime-dir; pass a session id an earlier run printed, or leave --resume out',
    ],
    ["the Run timed out after 5 s", "the Run timed out after 5 s"],
  ])("%s reads as the command's flags", (error, said) => {
    const lines = summaryLines({ ok: false, reason: "invalid_request", error, durationMs: 1 }, startProgress("claude", 0), [], NO_PAINT);
    expect(lines[1]).toContain(said);
  });
});

describe("exit codes", () => {
  it.each([
    [{ ok: true, reason: "completed" }, EXIT.completed],
    [{ ok: false, reason: "failed" }, EXIT.failed],
    [{ ok: false, reason: "harvest_refused" }, EXIT.failed],
    [{ ok: false, reason: "invalid_request" }, EXIT.usage],
    [{ ok: false, reason: "unavailable" }, EXIT.unavailable],
    [{ ok: false, reason: "timeout" }, EXIT.timeout],
    [{ ok: false, reason: "cancelled" }, EXIT.cancelled],
  ])("%j exits %i", (outcome, code) => {
    expect(exitCodeOf(outcome)).toBe(code);
  });
});
