// Each CLI's own `--version`, asked in a locked-down container of the agent image: the pinned
// claude and codex of images/agent/clis.env, and an image without the CLIs saying so.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { agentCliVersions } from "../subpaths/agents.js";
import { PREFLIGHT_OWNER } from "../probes/index.js";
import { docker } from "../../test/support/engine.js";

const pinned = Object.fromEntries(
  readFileSync(new URL("../../images/agent/clis.env", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.split("=", 2) as [string, string]),
);

describe("agentCliVersions against the real agent image", () => {
  it("says the pinned versions, as each CLI prints them, and leaves no container", async () => {
    const started = performance.now();
    const versions = await agentCliVersions({ image: "agentcage-agent:latest" });
    expect(versions).toEqual({
      claude: { ok: true, version: pinned["CLAUDE_VERSION"], said: `${pinned["CLAUDE_VERSION"]} (Claude Code)` },
      codex: { ok: true, version: pinned["CODEX_VERSION"], said: `codex-cli ${pinned["CODEX_VERSION"]}` },
    });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.owner=${PREFLIGHT_OWNER}`)).toBe("");
  });

  it("says which CLI an image lacks, in the image's own words (its timer's)", async () => {
    const versions = await agentCliVersions({ image: "debian:bookworm-slim" });
    expect(versions.claude).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^claude --version in "debian:bookworm-slim": .*exited with code 127.*failed to run command ‘claude’: No such file or directory/,
      ),
    });
    expect(versions.codex.ok).toBe(false);
  });
});
