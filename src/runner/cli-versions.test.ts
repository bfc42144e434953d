// agentCliVersions against the fake engine: the CLI itself is the entrypoint, with no network and
// a Run's public environment; the first dotted version it prints is its version; misuse is refused.

import { describe, expect, it } from "vitest";
import { createFakeEngine, createUnreachableEngine, type FakeContainerScript } from "../../test/support/fake-engine.js";
import { AgentRunnerError } from "../index.js";
import { agentCliVersions, type CliVersionOptions } from "../subpaths/agents.js";
import type { ComposedSpec } from "../subpaths/runtime.js";

function engineSaying(byCli: Record<string, FakeContainerScript>) {
  const specs: ComposedSpec[] = [];
  const engine = createFakeEngine((spec) => {
    specs.push(spec);
    return byCli[spec.entrypoint?.[0] ?? ""] ?? {};
  });
  return { engine, specs };
}

describe("agentCliVersions", () => {
  it("runs each CLI's --version as the entrypoint, with no network and the Run's public environment", async () => {
    const { engine, specs } = engineSaying({ claude: { stdout: ["2.1.332 (Claude Code)\n"] }, codex: { stdout: ["codex-cli 0.171.0\n"] } });
    expect(await agentCliVersions({ image: "agent:1", engine })).toEqual({
      claude: { ok: true, version: "2.1.332", said: "2.1.332 (Claude Code)" },
      codex: { ok: true, version: "0.171.0", said: "codex-cli 0.171.0" },
    });
    expect(specs.map((s) => [s.entrypoint, s.planArgs, s.networks])).toEqual([
      [["claude"], ["--version"], []],
      [["codex"], ["--version"], []],
    ]);
    expect(Object.fromEntries(specs[0]?.env ?? [])).toMatchObject({ HOME: "/tmp", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1" });
    expect(specs[0]?.labels["agentcage.owner"]).toBe("agentcage-preflight");
    expect(engine.existing()).toEqual([]);
  });

  it("finds the version past other lines, keeps a pre-release, and drops control characters", async () => {
    const { engine } = engineSaying({
      claude: { stdout: ["warning: something\n", "\u001b[1m2.2.0-beta.3\u001b[0m (Claude Code)\n"] },
      codex: { stdout: ["codex-cli v0.172.0-alpha.1"] },
    });
    expect(await agentCliVersions({ image: "agent:1", engine })).toEqual({
      claude: { ok: true, version: "2.2.0-beta.3", said: "2.2.0-beta.3 (Claude Code)" },
      codex: { ok: true, version: "0.172.0-alpha.1", said: "codex-cli v0.172.0-alpha.1" },
    });
  });

  it("says what a CLI printed when it is no version, and what the engine said when it could not run", async () => {
    const { engine } = engineSaying({
      claude: { stdout: ["usage: claude\n"], exitCode: 2 },
      codex: { fail: { create: { statusCode: 404, message: "No such image: agent:1" } } },
    });
    const versions = await agentCliVersions({ image: "agent:1", engine });
    expect(versions.claude).toEqual({
      ok: false,
      error: expect.stringMatching(/^claude --version in "agent:1": it printed no version: "usage: claude\\n"; the agent exited with code 2/),
    });
    expect(versions.codex).toEqual({ ok: false, error: expect.stringMatching(/^codex --version in "agent:1": image "agent:1" is not on this engine/) });
    expect((await agentCliVersions({ image: "agent:1", engine: createUnreachableEngine() })).claude).toMatchObject({
      ok: false,
      error: expect.stringContaining("unreachable"),
    });
  });

  it.each<[string, unknown, RegExp]>([
    ["a missing image", {}, /^image undefined is not an image reference/],
    ["an unknown option", { image: "agent:1", cli: "claude" }, /^agentCliVersions option "cli" is not one it knows/],
  ])("refuses %s, naming it", async (_, options, message) => {
    await expect(agentCliVersions(options as CliVersionOptions)).rejects.toThrow(AgentRunnerError);
    await expect(agentCliVersions(options as CliVersionOptions)).rejects.toThrow(message);
  });
});
