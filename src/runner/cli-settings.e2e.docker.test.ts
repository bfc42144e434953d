// The switches that keep each CLI from sending anything but its model requests must exist in the
// CLI versions the agent image pins: codex ignores a config key it does not know and claude an
// environment variable it does not read, so a renamed switch would turn nothing off, silently.
// codex refuses a mistyped value for a key it knows and an unknown feature name; claude's binary
// names every variable it reads.

import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CLAUDE_QUIET, CODEX_QUIET, publicEnvironment } from "../agents/index.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";

/** Runs `script` with bash in a locked-down agent container with no network; its stdout. */
function inAgentImage(script: string, ...args: string[]): string {
  return execFileSync(
    "docker",
    [
      "run",
      "--rm",
      "--network",
      "none",
      "--read-only",
      "--tmpfs",
      "/tmp:rw,nosuid,nodev,size=64m,mode=1777",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "-e",
      "HOME=/tmp",
      "-e",
      "TMPDIR=/var/tmp",
      "-e",
      "CODEX_HOME=/tmp",
      AGENT_IMAGE,
      "bash",
      "-c",
      script,
      "bash",
      ...args,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 },
  );
}

/** The `-c key=value` pairs and `--disable` names among the adapter's codex words. */
function codexSwitches(words: readonly string[]): { keys: string[]; features: string[] } {
  const keys: string[] = [];
  const features: string[] = [];
  for (let i = 0; i < words.length; i += 2) {
    const [flag, value] = [words[i], words[i + 1] ?? ""];
    if (flag === "-c") keys.push(value.slice(0, value.indexOf("=")));
    else if (flag === "--disable") features.push(value);
    else throw new Error(`unexpected word ${JSON.stringify(flag)} in CODEX_QUIET`);
  }
  return { keys, features };
}

describe("the switches that turn off each CLI's own traffic", () => {
  it("name config keys the pinned codex knows: a mistyped value for each is refused, naming the key", () => {
    const { keys } = codexSwitches(CODEX_QUIET);
    expect(keys.length).toBeGreaterThan(0);
    // For each key: codex exec with that key set to an array, which no key of ours takes.
    const out = inAgentImage(
      'for key in "$@"; do codex exec --ignore-user-config --skip-git-repo-check -c "$key=[]" - </dev/null >/dev/null 2>/tmp/err; echo "$key exit=$? $(grep -o "in \\`[^\\`]*\\`" /tmp/err)"; done',
      ...keys,
    );
    expect(out.trim().split("\n")).toEqual(keys.map((key) => `${key} exit=1 in \`${key}\``));
  });

  it("name features the pinned codex has", () => {
    const { features } = codexSwitches(CODEX_QUIET);
    const listed = inAgentImage("codex features list 2>/dev/null")
      .split("\n")
      .map((line) => line.split(/\s+/)[0]);
    for (const feature of features) expect(listed, feature).toContain(feature);
  });

  it("name environment variables the pinned claude reads", () => {
    const names = [...Object.keys(CLAUDE_QUIET), "DISABLE_AUTOUPDATER"];
    expect(Object.keys(publicEnvironment("claude"))).toEqual(expect.arrayContaining(names));
    const found = inAgentImage('grep -a -o -w -F "${@/#/-e}" /usr/local/bin/claude | sort -u', ...names);
    expect(found.trim().split("\n").sort()).toEqual([...names].sort());
  });
});
