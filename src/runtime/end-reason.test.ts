// How a Run's end is decided and told: the ranking of reasons, the signal behind an exit code,
// and the one failure message (reader's error, then exit facts, then the start of stderr).

import { describe, expect, it } from "vitest";
import { STDERR_QUOTE_BYTES } from "./limits.js";
import { decideReason, describeFailure, signalOfExitCode, type Observed } from "./end-reason.js";

const KILLED_OOM = { code: 137, signal: "SIGKILL", oomKilled: true } as const;

describe("decideReason", () => {
  const everything: Observed = {
    interruption: "timeout",
    engineFailure: "no such image",
    readerThrew: "bad json",
    verdict: { ok: true },
    exit: KILLED_OOM,
    stderr: "",
  };
  const { interruption: _interruption, ...uninterrupted } = everything;

  it.each<[string, Observed, string]>([
    ["an interruption over everything else", everything, "timeout"],
    ["a cancel as its own interruption", { ...everything, interruption: "cancelled" }, "cancelled"],
    ["an output limit as its own interruption", { ...everything, interruption: "output_limit" }, "output_limit"],
    ["a stall as its own interruption, over a reader that said ok", { ...everything, interruption: "stalled" }, "stalled"],
    ["an engine failure over the reader", uninterrupted, "unavailable"],
    ["a reader that threw over its verdict", { readerThrew: "bad json", verdict: { ok: true }, exit: KILLED_OOM, stderr: "" }, "reader_error"],
    ["a reader that said ok over an OOM kill", { verdict: { ok: true }, exit: KILLED_OOM, stderr: "" }, "completed"],
    ["exit 127 over a reader that said ok: the command never ran", { verdict: { ok: true }, exit: { code: 127, oomKilled: false }, stderr: "" }, "unavailable"],
    ["exit 126 over a reader that threw", { readerThrew: "no output", exit: { code: 126, oomKilled: false }, stderr: "" }, "unavailable"],
    ["an OOM kill over a failed verdict", { verdict: { ok: false }, exit: KILLED_OOM, stderr: "" }, "oom"],
    ["an OOM kill over exit 125", { verdict: { ok: false }, exit: { code: 125, oomKilled: true }, stderr: "" }, "oom"],
    ["exit 125 as unavailable", { verdict: { ok: false }, exit: { code: 125, oomKilled: false }, stderr: "" }, "unavailable"],
    ["exit 126 as unavailable", { verdict: { ok: false }, exit: { code: 126, oomKilled: false }, stderr: "" }, "unavailable"],
    ["exit 127 as unavailable", { exit: { code: 127, oomKilled: false }, stderr: "" }, "unavailable"],
    ["any other exit as failed", { verdict: { ok: false }, exit: { code: 1, oomKilled: false }, stderr: "" }, "failed"],
    ["a failed verdict with exit 0 as failed", { verdict: { ok: false }, exit: { code: 0, oomKilled: false }, stderr: "" }, "failed"],
    ["nothing observed as failed", { stderr: "" }, "failed"],
  ])("ranks %s", (_what, observed, reason) => {
    expect(decideReason(observed)).toBe(reason);
  });
});

describe("signalOfExitCode", () => {
  it.each<[number, string | undefined]>([
    [137, "SIGKILL"],
    [143, "SIGTERM"],
    [130, "SIGINT"],
    [1, undefined],
    [0, undefined],
    [128, undefined],
    [255, undefined],
  ])("reads %i as %s", (code, signal) => {
    expect(signalOfExitCode(code)).toBe(signal);
  });
});

describe("describeFailure", () => {
  it("puts the reader's error first, then the exit facts, then stderr", () => {
    expect(
      describeFailure({
        verdict: { ok: false, error: "the agent reported an error" },
        exit: { code: 1, oomKilled: false },
        stderr: "  Error: quota exceeded\n",
      }),
    ).toBe("the agent reported an error; the agent exited with code 1; stderr: Error: quota exceeded");
  });

  it("tells a signal and an OOM kill", () => {
    expect(describeFailure({ verdict: { ok: false }, exit: KILLED_OOM, stderr: "" })).toBe(
      "the reader said the Run failed; the agent was killed by SIGKILL (exit code 137) after running out of memory",
    );
  });

  it("says what to add when the image has no timeout to run the agent under, in tini's words or the engine's", () => {
    const exit = { code: 127, oomKilled: false };
    const hint =
      "the image has no `timeout` on its PATH, which every Run's agent runs under (its container's own deadline); add coreutils or busybox to the image";
    expect(describeFailure({ exit, stderr: "[FATAL tini (7)] exec timeout failed: No such file or directory" })).toBe(
      `the reader gave no verdict; the agent exited with code 127; stderr: [FATAL tini (7)] exec timeout failed: No such file or directory; ${hint}`,
    );
    expect(describeFailure({ engineFailure: 'start: exec: "timeout": executable file not found in $PATH', stderr: "" })).toContain(hint);
    // timeout itself ran: what it could not run is the agent's own command.
    expect(describeFailure({ exit, stderr: "timeout: failed to run command 'claude': No such file or directory" })).not.toContain("no `timeout`");
  });

  it("quotes what the reader threw", () => {
    expect(describeFailure({ readerThrew: "Unexpected token } in JSON", exit: { code: 0, oomKilled: false }, stderr: "" })).toBe(
      "the reader threw: Unexpected token } in JSON; the agent exited with code 0",
    );
  });

  it("says the reader gave no verdict when it gave none", () => {
    expect(describeFailure({ exit: { code: 2, oomKilled: false }, stderr: "usage: agent" })).toBe(
      "the reader gave no verdict; the agent exited with code 2; stderr: usage: agent",
    );
  });

  it("opens with the interruption's own words", () => {
    expect(
      describeFailure({
        interruption: "timeout",
        interruptionDetail: "the Run passed its timeout of 5 s",
        exit: { code: 143, signal: "SIGTERM", oomKilled: false },
        stderr: "",
      }),
    ).toBe("the Run passed its timeout of 5 s; the agent was killed by SIGTERM (exit code 143)");
  });

  it("tells a stall: the silence, then what the reader made of the cut output, then the exit facts", () => {
    expect(
      describeFailure({
        interruption: "stalled",
        interruptionDetail: "the agent printed nothing and used no CPU for 600 s (stallSeconds 600); it was stopped",
        verdict: { ok: false, error: "the agent printed no result record" },
        exit: { code: 143, signal: "SIGTERM", oomKilled: false },
        stderr: "",
      }),
    ).toBe(
      "the agent printed nothing and used no CPU for 600 s (stallSeconds 600); it was stopped; the agent printed no result record; the agent was killed by SIGTERM (exit code 143)",
    );
  });

  it("opens with the engine's words when the engine failed", () => {
    expect(describeFailure({ engineFailure: "No such image: agent:1", stderr: "" })).toBe("No such image: agent:1");
  });

  it("quotes at most STDERR_QUOTE_BYTES of stderr and marks the cut", () => {
    const stderr = `${"x".repeat(STDERR_QUOTE_BYTES)}TAIL`;
    expect(describeFailure({ verdict: { ok: false, error: "failed" }, stderr })).toBe(`failed; stderr: ${"x".repeat(STDERR_QUOTE_BYTES)} [...]`);
  });

  it("cuts stderr on a character boundary, within STDERR_QUOTE_BYTES, and marks the cut", () => {
    const message = describeFailure({ verdict: { ok: false, error: "failed" }, stderr: `a${"é".repeat(1024)}` });
    const quoted = message.slice("failed; stderr: ".length, -" [...]".length);
    expect(message.endsWith(" [...]")).toBe(true);
    expect(quoted).toBe(`a${"é".repeat(1023)}`);
    expect(Buffer.byteLength(quoted)).toBeLessThanOrEqual(STDERR_QUOTE_BYTES);
  });

  it("quotes stderr of exactly STDERR_QUOTE_BYTES whole, without a mark", () => {
    const stderr = "y".repeat(STDERR_QUOTE_BYTES);
    expect(describeFailure({ verdict: { ok: false, error: "failed" }, stderr })).toBe(`failed; stderr: ${stderr}`);
  });

  it("leaves out stderr that is only whitespace", () => {
    expect(describeFailure({ verdict: { ok: false, error: "failed" }, stderr: " \n\t\n" })).toBe("failed");
  });
});
