// Where a Run's files live and what of them the agent reaches: pure, asserted as whole values,
// and rendered through the Mount Table to show the daemon gets exactly two binds (or one).

import { describe, expect, it } from "vitest";
import { mountArguments } from "../mounts/index.js";
import { DEFAULT_AGENT_WORKDIR } from "../container/index.js";
import { RUN_ID_PATTERN, runDirectory, stagedMounts } from "./layout.js";

const RUN_ID = "0123456789abcdef";

describe("runDirectory", () => {
  it("names every file of a Run under <runtimeDir>/<runId>/", () => {
    expect(runDirectory("/srv/agentcage", RUN_ID)).toEqual({
      runId: RUN_ID,
      root: "/srv/agentcage/0123456789abcdef",
      work: "/srv/agentcage/0123456789abcdef/work",
      out: "/srv/agentcage/0123456789abcdef/work/out",
      prompt: "/srv/agentcage/0123456789abcdef/prompt.txt",
      request: "/srv/agentcage/0123456789abcdef/request.json",
      stdout: "/srv/agentcage/0123456789abcdef/stdout.txt",
      stderr: "/srv/agentcage/0123456789abcdef/stderr.txt",
      outcome: "/srv/agentcage/0123456789abcdef/outcome.json",
      done: "/srv/agentcage/0123456789abcdef/done",
      info: "/srv/agentcage/0123456789abcdef/run.json",
      secrets: "/srv/agentcage/0123456789abcdef/secrets",
      changes: "/srv/agentcage/0123456789abcdef/changes",
      session: "/srv/agentcage/0123456789abcdef/session",
    });
  });
});

describe("RUN_ID_PATTERN", () => {
  it.each([RUN_ID, "ffffffffffffffff", "0000000000000000"])("accepts %j", (runId) => {
    expect(RUN_ID_PATTERN.test(runId)).toBe(true);
  });

  it.each(["0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "0123456789abcdeg", "0123456789abcdef\n", ""])("refuses %j", (runId) => {
    expect(RUN_ID_PATTERN.test(runId)).toBe(false);
  });
});

describe("stagedMounts", () => {
  it("binds work/ read-only at the agent's workdir and out/ writable inside it, by default", () => {
    expect(stagedMounts(RUN_ID, DEFAULT_AGENT_WORKDIR, false)).toStrictEqual([
      { agentPath: "/work", path: "0123456789abcdef/work", readOnly: true },
      { agentPath: "/work/out", path: "0123456789abcdef/work/out" },
    ]);
  });

  it("binds all of work/ writable, and nothing else, when work/ is writable", () => {
    expect(stagedMounts(RUN_ID, DEFAULT_AGENT_WORKDIR, true)).toStrictEqual([{ agentPath: "/work", path: "0123456789abcdef/work", readOnly: false }]);
  });

  it("binds at another agent workdir", () => {
    expect(stagedMounts(RUN_ID, "/home/agent/repo", false)).toStrictEqual([
      { agentPath: "/home/agent/repo", path: "0123456789abcdef/work", readOnly: true },
      { agentPath: "/home/agent/repo/out", path: "0123456789abcdef/work/out" },
    ]);
  });

  it.each(["/work/", "/work//"])("puts out/ right below an agent workdir written %j", (agentWorkdir) => {
    expect(stagedMounts(RUN_ID, agentWorkdir, false)).toStrictEqual([
      { agentPath: agentWorkdir, path: "0123456789abcdef/work", readOnly: true },
      { agentPath: "/work/out", path: "0123456789abcdef/work/out" },
    ]);
  });

  it.each(["/work", "/work/", "/work//"])("renders the same two binds for an agent workdir written %j", (agentWorkdir) => {
    expect(mountArguments({ runtimeDir: "/srv/agentcage", entries: stagedMounts(RUN_ID, agentWorkdir, false) })).toEqual([
      "--mount",
      "type=bind,source=/srv/agentcage/0123456789abcdef/work,target=/work,readonly",
      "--mount",
      "type=bind,source=/srv/agentcage/0123456789abcdef/work/out,target=/work/out",
    ]);
  });

  it("renders one writable bind when work/ is writable", () => {
    expect(mountArguments({ runtimeDir: "/srv/agentcage", entries: stagedMounts(RUN_ID, "/work/", true) })).toEqual([
      "--mount",
      "type=bind,source=/srv/agentcage/0123456789abcdef/work,target=/work",
    ]);
  });
});
