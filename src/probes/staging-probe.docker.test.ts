// The Staging Directory probe against the real engine: a directory the engine binds as this
// process sees it passes; nothing of the probe is left, neither container nor file.

import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PREFLIGHT_OWNER } from "./index.js";
import { probeStagingDirectory } from "../subpaths/runtime.js";
import { docker, TEST_IMAGE } from "../../test/support/engine.js";

const made: string[] = [];
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentcage-probe-"));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

const preflightContainers = (): string => docker("ps", "--all", "--quiet", "--filter", `label=agentcage.owner=${PREFLIGHT_OWNER}`);

describe("probeStagingDirectory against the real engine", () => {
  it("passes for a directory the engine binds as this process sees it, and leaves nothing behind", async () => {
    const runtimeDir = join(await scratch(), "staging");
    const probe = await probeStagingDirectory({ runtimeDir, image: TEST_IMAGE });
    expect(probe).toMatchObject({ ok: true, runtimeDir });
    expect(await readdir(runtimeDir)).toEqual([]);
    expect(preflightContainers()).toBe("");
  });

  it("passes with the agent image, whose entrypoint it bypasses", async () => {
    const runtimeDir = await scratch();
    expect(await probeStagingDirectory({ runtimeDir, image: "agentcage-agent:latest" })).toMatchObject({ ok: true });
  });

  it("says the engine failed, and cleans up, when the image is not there", async () => {
    const runtimeDir = await scratch();
    const probe = await probeStagingDirectory({ runtimeDir, image: "agentcage-no-such-image:latest" });
    expect(probe).toMatchObject({ ok: false, failure: "unavailable" });
    expect(probe.ok ? "" : probe.error).toMatch(/is not on this engine/);
    expect(await readdir(runtimeDir)).toEqual([]);
  });
});
