// Recovery of what an interrupted install leaves: the exact on-disk state of a process that died
// between the two renames (or before removing what it set aside) is written by hand, then a harvest
// or recoverHarvest() must leave the destination as it was before that install, and nothing beside it.

import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { harvest, HarvestArgumentError, recoverHarvest } from "./index.js";
import { siblingName } from "./recover.js";

const SET_ASIDE = ".dest.old-0123456789abcdef";
const HALF_INSTALLED = ".dest.harvest-fedcba9876543210";

let root: string;
let source: string;
let destination: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentcage-harvest-recover-"));
  source = path.join(root, "out");
  destination = path.join(root, "dest");
  await mkdir(source);
  await writeFile(path.join(source, "new.txt"), "from the new harvest\n");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What a process that died between `rename(dest, .old-)` and `rename(.harvest-, dest)` leaves. */
async function interruptedBetweenRenames(): Promise<bigint> {
  await mkdir(path.join(root, SET_ASIDE, "docs"), { recursive: true });
  await writeFile(path.join(root, SET_ASIDE, "docs", "old.txt"), "from the earlier harvest\n");
  await mkdir(path.join(root, HALF_INSTALLED), { mode: 0o755 });
  await writeFile(path.join(root, HALF_INSTALLED, "new.txt"), "from the interrupted harvest\n", { mode: 0o644 });
  return (await lstat(path.join(root, SET_ASIDE), { bigint: true })).ino;
}

async function expectEarlierTree(setAside: bigint): Promise<void> {
  expect((await lstat(destination, { bigint: true })).ino).toBe(setAside);
  expect(await readdir(destination)).toEqual(["docs"]);
  expect(await readFile(path.join(destination, "docs", "old.txt"), "utf8")).toBe("from the earlier harvest\n");
}

describe("recoverHarvest after a process died between the two renames of an install", () => {
  it("renames the earlier tree back onto the missing destination and removes the half-installed one", async () => {
    const setAside = await interruptedBetweenRenames();

    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: true, removed: 1, left: 0 });

    await expectEarlierTree(setAside);
    expect(await readdir(root)).toEqual(["dest", "out"]);
    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: false, removed: 0, left: 0 });
  });

  it("is what a harvest does first: the restored tree refuses a harvest not asked to replace it", async () => {
    const setAside = await interruptedBetweenRenames();

    const result = await harvest(source, destination);

    expect(result).toMatchObject({ ok: false, refusal: { reason: "destination_not_empty", entry: '"."' } });
    await expectEarlierTree(setAside);
    expect(await readdir(root)).toEqual(["dest", "out"]);
  });

  it("is what a harvest does first: asked to replace, the harvest replaces the restored tree and leaves nothing beside it", async () => {
    await interruptedBetweenRenames();

    expect(await harvest(source, destination, { replace: true })).toEqual({ ok: true, files: 1, directories: 0, bytes: 21 });

    expect(await readdir(destination)).toEqual(["new.txt"]);
    expect(await readFile(path.join(destination, "new.txt"), "utf8")).toBe("from the new harvest\n");
    expect(await readdir(root)).toEqual(["dest", "out"]);
  });

  it("restores the newest tree set aside when there are several, and removes the others", async () => {
    await mkdir(path.join(root, ".dest.old-1111111111111111"));
    await writeFile(path.join(root, ".dest.old-1111111111111111", "older.txt"), "older\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await mkdir(path.join(root, ".dest.old-2222222222222222"));
    await writeFile(path.join(root, ".dest.old-2222222222222222", "newer.txt"), "newer\n");

    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: true, removed: 1, left: 0 });

    expect(await readdir(destination)).toEqual(["newer.txt"]);
    expect(await readdir(root)).toEqual(["dest", "out"]);
  });
});

describe("recoverHarvest beside a consistent destination", () => {
  it("removes what a process that died after installing, or while walking, left beside an existing destination", async () => {
    await mkdir(destination);
    await writeFile(path.join(destination, "current.txt"), "installed\n");
    const installed = (await lstat(destination, { bigint: true })).ino;
    await interruptedBetweenRenames();

    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: false, removed: 2, left: 0 });

    expect((await lstat(destination, { bigint: true })).ino).toBe(installed);
    expect(await readdir(destination)).toEqual(["current.txt"]);
    expect(await readdir(root)).toEqual(["dest", "out"]);
  });

  it("removes a half-built harvest to a destination that never existed, which stays missing", async () => {
    await mkdir(path.join(root, HALF_INSTALLED));
    await writeFile(path.join(root, HALF_INSTALLED, "partial.txt"), "part");

    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: false, removed: 1, left: 0 });

    expect(await readdir(root)).toEqual(["out"]);
  });

  it("does nothing where there is nothing to recover, even without a parent", async () => {
    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: false, removed: 0, left: 0 });
    expect(await recoverHarvest(path.join(root, "missing", "dest"))).toEqual({ ok: true, restored: false, removed: 0, left: 0 });
    expect(await readdir(root)).toEqual(["out"]);
  });
});

describe("recoverHarvest touches only its own destination's siblings", () => {
  it("leaves names that merely look alike, other destinations' siblings, links and files", async () => {
    const elsewhere = path.join(root, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, "precious.txt"), "precious\n");
    const lookalikes = [
      ".dest.old-0123",
      ".dest.old-0123456789ABCDEF",
      ".dest.old-0123456789abcdef0",
      "dest.old-0123456789abcdef",
      ".dest2.old-0123456789abcdef",
      ".dest.harvest-0123456789abcdef.old-0123456789abcdef",
      ".dest.new-0123456789abcdef",
    ];
    for (const name of lookalikes) await mkdir(path.join(root, name));
    await symlink(elsewhere, path.join(root, SET_ASIDE));
    await writeFile(path.join(root, HALF_INSTALLED), "a file, not a harvest\n");
    const before = (await readdir(root)).sort();

    expect(await recoverHarvest(destination)).toEqual({ ok: true, restored: false, removed: 0, left: 0 });

    expect((await readdir(root)).sort()).toEqual(before);
    expect(await readdir(elsewhere)).toEqual(["precious.txt"]);
  });

  it("keeps apart two long destination names that begin alike, and names each one's siblings within NAME_MAX", async () => {
    const first = `${"x".repeat(70)}-first`;
    const second = `${"x".repeat(70)}-second`;
    const secondSetAside = siblingName(second, "old");
    await mkdir(path.join(root, secondSetAside));
    await writeFile(path.join(root, secondSetAside, "kept.txt"), "kept\n");

    expect(await harvest(source, path.join(root, first))).toMatchObject({ ok: true, files: 1 });
    expect(await readdir(root)).toEqual(expect.arrayContaining([secondSetAside]));
    expect(await recoverHarvest(path.join(root, second))).toEqual({ ok: true, restored: true, removed: 0, left: 0 });
    expect(await readdir(path.join(root, second))).toEqual(["kept.txt"]);

    const wide = "😀".repeat(63); // 252 bytes: a name this long leaves no room for a whole-name sibling
    expect(Buffer.byteLength(siblingName(wide, "harvest"))).toBeLessThanOrEqual(255);
    expect(await harvest(source, path.join(root, wide))).toMatchObject({ ok: true, files: 1 });
    expect(await harvest(source, path.join(root, wide), { replace: true })).toMatchObject({ ok: true, files: 1 });
  });

  it("leaves alone the siblings of a harvest this process is still running", async () => {
    await Promise.all(Array.from({ length: 400 }, (_, index) => writeFile(path.join(source, `f${index}`), "x")));
    await mkdir(destination);
    await writeFile(path.join(destination, "current.txt"), "installed\n");
    const running = harvest(source, destination, { replace: true });
    let seen = false;
    for (let poll = 0; poll < 2000 && !seen; poll += 1) {
      seen = (await readdir(root)).some((name) => name.startsWith(".dest.harvest-"));
      if (!seen) await new Promise((resolve) => setImmediate(resolve));
    }

    const recovered = await recoverHarvest(destination);

    expect(seen).toBe(true);
    expect(recovered).toEqual({ ok: true, restored: false, removed: 0, left: 0 });
    expect(await running).toMatchObject({ ok: true, files: 401 });
    expect(await readdir(root)).toEqual(["dest", "out"]);
  });
});

describe("recoverHarvest arguments", () => {
  it("rejects with HarvestArgumentError a relative path, the root, and extra arguments", async () => {
    await expect(recoverHarvest("dest")).rejects.toThrow(/harvest destination "dest" is not an absolute path/);
    await expect(recoverHarvest("/")).rejects.toThrow(HarvestArgumentError);
    const call = recoverHarvest as unknown as (...args: unknown[]) => Promise<unknown>;
    await expect(call(destination, { replace: true })).rejects.toThrow(/recoverHarvest takes \(destination\); 1 more argument/);
  });
});
