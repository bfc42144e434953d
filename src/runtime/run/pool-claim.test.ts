// Which claim a warm Run writes: `go` only when its member's head start has the Run's very words and
// whole environment (in order), else `run`; both carry the Run's words, environment and timer.

import { describe, expect, it } from "vitest";
import type { ComposedSpec } from "../../container/index.js";
import { claimOf } from "./pool-claim.js";
import { CLAIM_MAGIC, encodeClaim, encodeHeadStart, HEAD_START_MAGIC, tmpfsSecretCommand } from "../pool/index.js";

const env: Array<[string, string]> = [
  ["HOME", "/tmp"],
  ["ANTHROPIC_API_KEY", "agentcage-run-premade"],
];
const words = ["claude", "--print", "--max-turns", "5"];
const spec = (over: Partial<ComposedSpec> = {}) =>
  ({ planArgs: words, env, deadline: { seconds: 121, graceSeconds: 10, signal: "SIGTERM" }, ...over }) as unknown as ComposedSpec;
const head = { words, env, runEnv: { ANTHROPIC_API_KEY: "agentcage-run-premade" } };

describe("claimOf", () => {
  it("says go to a head start with the Run's words and environment", () => {
    expect(claimOf(spec(), { headStart: head })).toEqual({ mode: "go", deadline: spec().deadline, words, env });
  });

  it("says run without a head start, or to one whose words or any variable differ", () => {
    expect(claimOf(spec(), {}).mode).toBe("run");
    expect(claimOf(spec({ planArgs: [...words, "--model", "x"] }), { headStart: head }).mode).toBe("run");
    expect(claimOf(spec({ env: [env[0] as [string, string], ["ANTHROPIC_API_KEY", "agentcage-run-other"]] }), { headStart: head }).mode).toBe("run");
    expect(claimOf(spec({ env: [...env, ["EXTRA", "1"]] }), { headStart: head }).mode).toBe("run");
    expect(claimOf(spec({ env: [...env].reverse() }), { headStart: head }).mode).toBe("run");
  });
});

describe("the launcher's fields", () => {
  const fields = (bytes: Buffer) => bytes.toString("utf8").split("\0").slice(0, -1);

  it("carry a claim's mode, its timer as deadlineWords spells it, its words and its environment", () => {
    expect(fields(encodeClaim({ mode: "go", deadline: { seconds: 121, graceSeconds: 10, signal: "SIGTERM" }, words: ["a b"], env: [["K", "v=1"]] }))).toEqual([
      CLAIM_MAGIC,
      "go",
      "TERM",
      "10",
      "121",
      "1",
      "a b",
      "1",
      "K=v=1",
      "0",
    ]);
    expect(fields(encodeClaim({ mode: "run", deadline: { seconds: 5, graceSeconds: 0, signal: "SIGTERM" }, words: ["x"], env: [] })).slice(1, 5)).toEqual([
      "run",
      "KILL",
      "0",
      "5",
    ]);
    expect(fields(encodeClaim({ mode: "run", words: ["x"], env: [] })).slice(2, 5)).toEqual(["", "", ""]);
  });

  it("carry tmpfs secrets after the environment, and refuse a name that is not a plain file name without quoting a value", () => {
    expect(fields(encodeClaim({ mode: "run", words: ["x"], env: [["K", "v"]], secrets: [["api-key", "s=1"]] })).slice(-4)).toEqual([
      "1",
      "K=v",
      "1",
      "api-key=s=1",
    ]);
    for (const name of ["../key", ".written", "Key", "", "a/b"]) {
      expect(() => encodeClaim({ mode: "run", words: ["x"], env: [], secrets: [[name, "value-not-quoted"]] })).toThrow(/is not a file name/);
    }
    expect(() => encodeClaim({ mode: "run", words: ["x"], env: [], secrets: [["k", "sec\0ret"]] })).toThrow(/holds a NUL byte/);
    expect(() => tmpfsSecretCommand("../etc")).toThrow(/is not a file name/);
  });

  it("carry a head start's environment before its words, and refuse a NUL without quoting the value", () => {
    expect(fields(encodeHeadStart({ words: ["claude", "--print"], env: [["K", "v"]] }))).toEqual([HEAD_START_MAGIC, "1", "2", "K=v", "claude", "--print"]);
    expect(() => encodeHeadStart({ words: ["claude"], env: [["K", "sec\0ret"]] })).toThrow(/holds a NUL byte/);
    expect(() => encodeHeadStart({ words: ["claude"], env: [["K", "sec\0ret"]] })).not.toThrow(/sec/);
    expect(() => encodeHeadStart({ words: [], env: [] })).toThrow(/no words/);
  });
});
