// The Staging Directory probe's verdicts against the fake engine: what the probe container printed
// or the engine answered, read as one failure each, and nothing of the probe left on disk.

import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine, createUnreachableEngine, type FakeContainerScript } from "../../test/support/fake-engine.js";
import { RunRequestError } from "../index.js";
import { probeStagingDirectory, type ComposedSpec, type StagingProbeOptions } from "../subpaths/runtime.js";

const made: string[] = [];
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentcage-probe-unit-"));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A probe container that prints the file the engine bound, as a real one does. */
const honest = (spec: ComposedSpec): FakeContainerScript => {
  const source = spec.mounts[0]?.Source ?? "";
  return { stdout: [readFileSync(join(source, "nonce"))] };
};

describe("probeStagingDirectory", () => {
  it("passes when the container prints the nonce it was given, bound read-only from the probe's own subdirectory", async () => {
    const runtimeDir = await scratch();
    let mounts: unknown;
    let entrypoint: unknown;
    const engine = createFakeEngine((spec) => {
      mounts = spec.mounts;
      entrypoint = spec.entrypoint;
      return honest(spec);
    });
    const probe = await probeStagingDirectory({ runtimeDir, image: "agent:1", engine });
    expect(probe).toMatchObject({ ok: true, runtimeDir });
    expect(mounts).toEqual([{ Type: "bind", Source: expect.stringMatching(new RegExp(`^${runtimeDir}/\\.probe-\\w+$`)), Target: "/probe", ReadOnly: true }]);
    expect(entrypoint).toEqual(["cat"]);
    expect(await readdir(runtimeDir)).toEqual([]);
    expect(engine.existing()).toEqual([]);
  });

  it("creates a missing Staging Directory, as a Run would", async () => {
    const runtimeDir = join(await scratch(), "a", "staging");
    expect(await probeStagingDirectory({ runtimeDir, image: "agent:1", engine: createFakeEngine(honest) })).toMatchObject({ ok: true });
    expect(await readdir(runtimeDir)).toEqual([]);
  });

  it.each<[string, FakeContainerScript, string, RegExp]>([
    [
      "the engine's host has no such directory",
      { fail: { create: { statusCode: 400, message: 'invalid mount config for type "bind": bind source path does not exist: /elsewhere/staging/.probe-x' } } },
      "not_on_engine",
      /^the engine's host has no directory ".*\.probe-\w+": .*bind source path does not exist/,
    ],
    [
      "the bound directory lacks the file",
      { stderr: ["cat: can't open '/probe/nonce': No such file or directory\n"], exitCode: 1 },
      "other_directory",
      /without the probe file in it/,
    ],
    ["the bound file holds something else", { stdout: ["f00d"] }, "other_directory", /holding another file: the probe container printed "f00d", not the nonce/],
    [
      "the container may not read it",
      { stderr: ["cat: /probe/nonce: Permission denied\n"], exitCode: 1 },
      "unreadable",
      /could not read the file it was given: "cat: \/probe\/nonce: Permission denied"/,
    ],
    ["the image is missing", { fail: { create: { statusCode: 404, message: "No such image: agent:1" } } }, "unavailable", /is not on this engine/],
  ])("fails when %s", async (_, script, failure, error) => {
    const runtimeDir = await scratch();
    const probe = await probeStagingDirectory({ runtimeDir, image: "agent:1", engine: createFakeEngine(script) });
    expect(probe).toMatchObject({ ok: false, failure });
    expect(probe.ok ? "" : probe.error).toMatch(error);
    expect(await readdir(runtimeDir)).toEqual([]);
  });

  it("fails as unavailable when the engine does not answer", async () => {
    const probe = await probeStagingDirectory({ runtimeDir: await scratch(), image: "agent:1", engine: createUnreachableEngine() });
    expect(probe).toMatchObject({ ok: false, failure: "unavailable", error: expect.stringContaining("the container engine is unreachable (ECONNREFUSED") });
  });

  it("fails as unwritable when this process cannot make the directory, before any container", async () => {
    const file = join(await scratch(), "a-file");
    await writeFile(file, "");
    const engine = createFakeEngine(honest);
    const probe = await probeStagingDirectory({ runtimeDir: join(file, "staging"), image: "agent:1", engine });
    expect(probe).toMatchObject({
      ok: false,
      failure: "unwritable",
      error: `this process cannot create a directory in ${JSON.stringify(join(file, "staging"))} (ENOTDIR)`,
    });
    expect(engine.calls).toEqual([]);
  });

  it.each<[string, unknown, RegExp]>([
    [
      "a relative runtimeDir",
      { runtimeDir: "staging", image: "agent:1" },
      /^runtimeDir "staging" is not an absolute path; write the Staging Directory as this process sees it/,
    ],
    ["an empty image", { runtimeDir: "/srv/x", image: "" }, /^image "" is not an image reference/],
    ["an unknown option", { runtimeDir: "/srv/x", image: "agent:1", dir: "/x" }, /^probeStagingDirectory option "dir" is not one it knows/],
    ["both engine and docker", { runtimeDir: "/srv/x", image: "agent:1", engine: createFakeEngine(), docker: {} }, /given both engine and docker/],
  ])("refuses %s, naming it", async (_, options, message) => {
    await expect(probeStagingDirectory(options as StagingProbeOptions)).rejects.toThrow(RunRequestError);
    await expect(probeStagingDirectory(options as StagingProbeOptions)).rejects.toThrow(message);
  });
});
