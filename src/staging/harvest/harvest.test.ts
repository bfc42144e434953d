// Harvest against real trees on the local disk (no engine): what passes is copied byte-exact with
// normalized modes; everything refused leaves the destination, its siblings and any canary as they were.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { opendirSync } from "node:fs";
import { link, lstat, mkdir, mkdtemp, open, opendir, readdir, readFile, readlink, rm, symlink, writeFile, chmod } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { harvest, MAX_HARVEST_DEPTH, MAX_HARVEST_ENTRIES, MAX_HARVEST_FILE_BYTES, HarvestArgumentError, type HarvestLimits } from "./index.js";
import type { HarvestRefusal, HarvestRefusalReason } from "../../plan/index.js";
import { holdCopies } from "./copy.js";
import { HARVEST_LISTING_PART_RECORDS } from "./limits.js";

type Fixture = { readonly root: string; readonly source: string; readonly destination: string; readonly canary: string };

type Node = {
  readonly name: string; // the path's bytes as latin1: one character per byte, so byte-exact
  readonly type: "file" | "directory" | "symlink" | "other";
  readonly mode: number;
  readonly ino: bigint;
  readonly content?: string;
  readonly target?: string;
};

const NON_UTF8_NAME = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]); // "café.txt" in Latin-1
const NEWLINE_NAME = "line\nbreak.txt";
const CANARY_TEXT = "host canary: must never be read into a harvest or changed\n";

let fixture: Fixture;

beforeEach(async () => {
  const root = await mkdtemp(path.join(tmpdir(), "agentcage-harvest-"));
  fixture = { root, source: path.join(root, "out"), destination: path.join(root, "dest"), canary: path.join(root, "canary.txt") };
  await mkdir(fixture.source);
  await writeFile(fixture.canary, CANARY_TEXT, { mode: 0o600 });
});

afterEach(async () => {
  await rm(fixture.root, { recursive: true, force: true });
});

/** Every node under `root`, found without following links, with mode, inode and content digest. */
async function snapshot(root: string): Promise<Node[]> {
  const nodes: Node[] = [];
  const visit = async (directory: Buffer, relative: Buffer): Promise<void> => {
    const names: Buffer[] = [];
    for await (const dirent of await opendir(directory, { encoding: "buffer" as BufferEncoding })) names.push(dirent.name as unknown as Buffer);
    names.sort(Buffer.compare);
    for (const name of names) {
      const full = Buffer.concat([directory, Buffer.from("/"), name]);
      const rel = relative.length === 0 ? name : Buffer.concat([relative, Buffer.from("/"), name]);
      const stats = await lstat(full, { bigint: true });
      const common = { name: rel.toString("latin1"), mode: Number(stats.mode & 0o7777n), ino: stats.ino };
      if (stats.isDirectory()) {
        nodes.push({ ...common, type: "directory" });
        await visit(full, rel);
      } else if (stats.isFile()) {
        const content = await readFile(full);
        nodes.push({
          ...common,
          type: "file",
          content: content.length <= 4096 ? content.toString("latin1") : createHash("sha256").update(content).digest("hex"),
        });
      } else if (stats.isSymbolicLink()) {
        nodes.push({ ...common, type: "symlink", target: await readlink(full) });
      } else {
        nodes.push({ ...common, type: "other" });
      }
    }
  };
  await visit(Buffer.from(root), Buffer.alloc(0));
  return nodes;
}

const withoutInodes = (nodes: readonly Node[]): Omit<Node, "ino">[] => nodes.map(({ ino: _ino, ...rest }) => rest);

async function siblings(): Promise<string[]> {
  return (await readdir(fixture.root)).sort();
}

async function canaryState(): Promise<unknown> {
  const stats = await lstat(fixture.canary, { bigint: true });
  return { text: await readFile(fixture.canary, "utf8"), mode: stats.mode, ino: stats.ino, mtime: stats.mtimeNs, nlink: stats.nlink };
}

/** A destination a previous harvest left, so a refusal has something to leave alone. */
async function seedDestination(): Promise<void> {
  await mkdir(path.join(fixture.destination, "old-dir"), { recursive: true });
  await writeFile(path.join(fixture.destination, "old.txt"), "from an earlier harvest\n");
  await writeFile(path.join(fixture.destination, "old-dir", "kept.txt"), "kept\n");
}

async function writeSource(relative: string, content: string | Buffer = "x"): Promise<string> {
  const full = path.join(fixture.source, relative);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
  return full;
}

async function manyFiles(count: number): Promise<void> {
  for (let start = 0; start < count; start += 200) {
    const batch = Array.from({ length: Math.min(200, count - start) }, (_, offset) => writeFile(path.join(fixture.source, `f${start + offset}`), ""));
    await Promise.all(batch);
  }
}

/** Harvests over a seeded destination (asked to replace it) and checks it was refused for `reason` and left untouched. */
async function expectRefused(reason: HarvestRefusalReason, entry: string | RegExp, limits?: Partial<HarvestLimits>): Promise<HarvestRefusal> {
  await seedDestination();
  const before = await snapshot(fixture.destination);
  const siblingsBefore = await siblings();
  const canaryBefore = await canaryState();
  const result = await harvest(fixture.source, fixture.destination, { ...limits, replace: true });
  if (result.ok) throw new Error(`expected a ${reason} refusal, got ${JSON.stringify(result)}`);
  expect(result.refusal.reason).toBe(reason);
  if (typeof entry === "string") expect(result.refusal.entry).toBe(entry);
  else expect(result.refusal.entry).toMatch(entry);
  if (result.refusal.entry !== '"."') expect(result.refusal.message).toContain(result.refusal.entry);
  expect(result.refusal.message).not.toMatch(/[\n\r]/);
  expect(await snapshot(fixture.destination)).toEqual(before);
  expect(await siblings()).toEqual(siblingsBefore);
  expect(await canaryState()).toEqual(canaryBefore);
  return result.refusal;
}

describe("harvest copies", () => {
  it("a nested tree byte-exact, files 0644 and directories 0755 whatever the umask", async () => {
    const data = Buffer.alloc(300 * 1024);
    for (let index = 0; index < data.length; index += 1) data[index] = (index * 7919) % 251;
    await writeSource("answer.txt", "42\n");
    await chmod(path.join(fixture.source, "answer.txt"), 0o600);
    await writeSource("run.sh", "#!/bin/sh\necho hi\n");
    await chmod(path.join(fixture.source, "run.sh"), 0o755);
    await writeSource("nested/deeper/data.bin", data);
    await mkdir(path.join(fixture.source, "empty"), { mode: 0o700 });
    await writeFile(Buffer.concat([Buffer.from(`${fixture.source}/nested/`), NON_UTF8_NAME]), "latin-1 name\n");
    await writeSource(NEWLINE_NAME, "newline name\n");

    const previousUmask = process.umask(0o077);
    let result;
    try {
      result = await harvest(fixture.source, fixture.destination);
    } finally {
      process.umask(previousUmask);
    }

    const bytes = 3 + 18 + data.length + 13 + 13;
    expect(result).toEqual({ ok: true, files: 5, directories: 3, bytes });
    const expected = withoutInodes(await snapshot(fixture.source)).map((node) => ({ ...node, mode: node.type === "directory" ? 0o755 : 0o644 }));
    const copied = withoutInodes(await snapshot(fixture.destination));
    expect(copied).toEqual(expected);
    expect(copied.map((node) => node.name)).toEqual(
      expect.arrayContaining(["empty", "nested/deeper/data.bin", `nested/${NON_UTF8_NAME.toString("latin1")}`, NEWLINE_NAME]),
    );
    expect((await lstat(fixture.destination)).mode & 0o7777).toBe(0o755);
    expect(await siblings()).toEqual(["canary.txt", "dest", "out"]);
  });

  it("over an existing destination when asked to replace it, replacing it entirely and leaving nothing beside it", async () => {
    await seedDestination();
    await writeSource("new.txt", "new\n");

    const result = await harvest(fixture.source, fixture.destination, { replace: true });

    expect(result).toEqual({ ok: true, files: 1, directories: 0, bytes: 4 });
    expect(withoutInodes(await snapshot(fixture.destination))).toEqual([{ name: "new.txt", type: "file", mode: 0o644, content: "new\n" }]);
    expect(await siblings()).toEqual(["canary.txt", "dest", "out"]);
  });

  it("an empty source as an empty directory", async () => {
    expect(await harvest(fixture.source, fixture.destination)).toEqual({ ok: true, files: 0, directories: 0, bytes: 0 });
    expect(await snapshot(fixture.destination)).toEqual([]);
  });

  it(`a directory exactly MAX_HARVEST_DEPTH (${MAX_HARVEST_DEPTH}) levels deep`, async () => {
    const levels = Array.from({ length: MAX_HARVEST_DEPTH }, (_, index) => `d${index + 1}`);
    await writeSource(path.join(...levels, "leaf.txt"), "leaf\n");

    const result = await harvest(fixture.source, fixture.destination);

    expect(result).toEqual({ ok: true, files: 1, directories: MAX_HARVEST_DEPTH, bytes: 5 });
    expect(await readFile(path.join(fixture.destination, ...levels, "leaf.txt"), "utf8")).toBe("leaf\n");
  });

  it(`exactly MAX_HARVEST_ENTRIES (${MAX_HARVEST_ENTRIES}) entries`, async () => {
    await manyFiles(MAX_HARVEST_ENTRIES);
    expect(await harvest(fixture.source, fixture.destination)).toEqual({ ok: true, files: MAX_HARVEST_ENTRIES, directories: 0, bytes: 0 });
  });

  it("a file of exactly MAX_HARVEST_FILE_BYTES", async () => {
    const handle = await open(path.join(fixture.source, "full.bin"), "w");
    await handle.truncate(MAX_HARVEST_FILE_BYTES);
    await handle.close();
    expect(await harvest(fixture.source, fixture.destination)).toEqual({ ok: true, files: 1, directories: 0, bytes: MAX_HARVEST_FILE_BYTES });
    expect((await lstat(path.join(fixture.destination, "full.bin"))).size).toBe(MAX_HARVEST_FILE_BYTES);
  });
});

describe("harvest refuses, leaving the destination as it was", () => {
  it("an absolute symlink to a host canary, which stays untouched", async () => {
    await writeSource("answer.txt");
    await symlink(fixture.canary, path.join(fixture.source, "leak"));
    const refusal = await expectRefused("symlink", '"leak"');
    expect(refusal.message).toContain("symbolic link");
  });

  it("a relative ../ symlink", async () => {
    await writeSource("sub/answer.txt");
    await symlink("../../canary.txt", path.join(fixture.source, "sub", "up"));
    await expectRefused("symlink", '"sub/up"');
  });

  it("a symlinked directory on the way", async () => {
    await mkdir(path.join(fixture.root, "elsewhere"));
    await writeFile(path.join(fixture.root, "elsewhere", "secret.txt"), "secret\n");
    await mkdir(path.join(fixture.source, "a"));
    await symlink(path.join(fixture.root, "elsewhere"), path.join(fixture.source, "a", "dir"));
    await expectRefused("symlink", '"a/dir"');
  });

  it("a symlink whose name is not UTF-8 and holds a newline, named printably", async () => {
    await symlink(fixture.canary, Buffer.concat([Buffer.from(`${fixture.source}/`), Buffer.from([0x6c, 0xff, 0x0a, 0x6b])]));
    await expectRefused("symlink", '"l\\\\xff\\nk"');
  });

  it("a hardlink to another file", async () => {
    await link(fixture.canary, path.join(fixture.source, "copy.txt"));
    const refusal = await expectRefused("hardlink", '"copy.txt"');
    expect(refusal.message).toContain("link count 2");
  });

  it("a FIFO, without opening it", { timeout: 5_000 }, async () => {
    execFileSync("mkfifo", [path.join(fixture.source, "pipe")]);
    const refusal = await expectRefused("special_file", '"pipe"');
    expect(refusal.message).toContain("FIFO");
  });

  it("a unix socket", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(fixture.source, "sock"), resolve));
    try {
      const refusal = await expectRefused("special_file", '"sock"');
      expect(refusal.message).toContain("socket");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a sparse 1 TiB file, quickly", async () => {
    const handle = await open(path.join(fixture.source, "huge.bin"), "w");
    await handle.truncate(2 ** 40);
    await handle.close();
    const started = performance.now();
    const refusal = await expectRefused("file_too_large", '"huge.bin"');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(refusal.message).toContain("MAX_HARVEST_FILE_BYTES");
  });

  it("a 9 MiB file", async () => {
    await writeSource("big.bin", Buffer.alloc(9 * 1024 * 1024, 0x61));
    await expectRefused("file_too_large", '"big.bin"');
  });

  it(`a directory ${MAX_HARVEST_DEPTH + 1} levels deep`, async () => {
    const levels = Array.from({ length: MAX_HARVEST_DEPTH + 1 }, (_, index) => `d${index + 1}`);
    await writeSource(path.join(...levels, "leaf.txt"));
    const refusal = await expectRefused("too_deep", JSON.stringify(levels.join("/")));
    expect(refusal.message).toContain("MAX_HARVEST_DEPTH (8)");
  });

  it(`${MAX_HARVEST_ENTRIES + 1} files`, async () => {
    await manyFiles(MAX_HARVEST_ENTRIES + 1);
    const refusal = await expectRefused("too_many_entries", /^"f\d+"$/);
    expect(refusal.message).toContain(`MAX_HARVEST_ENTRIES (${MAX_HARVEST_ENTRIES}`);
  });

  it("a setuid file", async () => {
    const file = await writeSource("tool");
    await chmod(file, 0o4755);
    await expectRefused("special_mode", '"tool"');
  });

  it("a sticky or setgid directory", async () => {
    await mkdir(path.join(fixture.source, "shared"));
    await chmod(path.join(fixture.source, "shared"), 0o1777);
    await expectRefused("special_mode", '"shared"');
    await chmod(path.join(fixture.source, "shared"), 0o2755);
    await expectRefused("special_mode", '"shared"');
  });

  it("a 0000-mode file, by its mode bits even when run as root", async () => {
    const file = await writeSource("secret");
    await chmod(file, 0o000);
    await expectRefused("unreadable", '"secret"');
  });

  it("a destination that is a symlink to another directory, which stays untouched", async () => {
    await writeSource("answer.txt");
    const elsewhere = path.join(fixture.root, "elsewhere");
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, "precious.txt"), "precious\n");
    await symlink(elsewhere, fixture.destination);
    const elsewhereBefore = await snapshot(elsewhere);
    const linkBefore = await lstat(fixture.destination, { bigint: true });
    const siblingsBefore = await siblings();

    const result = await harvest(fixture.source, fixture.destination);

    expect(result).toMatchObject({ ok: false, refusal: { reason: "destination_is_symlink", entry: '"."' } });
    expect(await snapshot(elsewhere)).toEqual(elsewhereBefore);
    expect(await readlink(fixture.destination)).toBe(elsewhere);
    expect((await lstat(fixture.destination, { bigint: true })).ino).toBe(linkBefore.ino);
    expect(await siblings()).toEqual(siblingsBefore);
  });

  it("a missing source", async () => {
    await rm(fixture.source, { recursive: true });
    await expectRefused("source_missing", '"."');
  });

  it("a source that is a symlink to a directory", async () => {
    await writeSource("answer.txt");
    const linked = path.join(fixture.root, "linked-out");
    await symlink(fixture.source, linked);
    await seedDestination();
    const before = await snapshot(fixture.destination);
    expect(await harvest(linked, fixture.destination, { replace: true })).toMatchObject({ ok: false, refusal: { reason: "symlink", entry: '"."' } });
    expect(await snapshot(fixture.destination)).toEqual(before);
  });

  it("a destination whose parent does not exist, saying so", async () => {
    await writeSource("answer.txt");
    const result = await harvest(fixture.source, path.join(fixture.root, "missing", "dest"));
    expect(result).toMatchObject({ ok: false, refusal: { reason: "io_error", entry: '"."' } });
    expect(!result.ok && result.refusal.message).toContain("does not exist");
    expect(await siblings()).toEqual(["canary.txt", "out"]);
  });

  it("a destination that is a regular file", async () => {
    await writeSource("answer.txt");
    await writeFile(fixture.destination, "a file\n");
    expect(await harvest(fixture.source, fixture.destination)).toMatchObject({ ok: false, refusal: { reason: "io_error" } });
    expect(await readFile(fixture.destination, "utf8")).toBe("a file\n");
    expect(await siblings()).toEqual(["canary.txt", "dest", "out"]);
  });
});

describe("harvest limits", () => {
  it("are overridable through the third argument", async () => {
    await writeSource("a/b/c.txt", "0123456789");
    await writeSource("d.txt", "0123456789");
    await expectRefused("too_deep", '"a/b"', { maxDepth: 1 });
    await expectRefused("file_too_large", /^"(a\/b\/c|d)\.txt"$/, { maxFileBytes: 9 });
    await expectRefused("total_too_large", /^"(a\/b\/c|d)\.txt"$/, { maxTotalBytes: 19 });
    const refusal = await expectRefused("too_many_entries", /^"/, { maxEntries: 3 });
    expect(refusal.message).toContain("MAX_HARVEST_ENTRIES (3");
    expect(await harvest(fixture.source, fixture.destination, { maxDepth: 2, maxFileBytes: 10, maxTotalBytes: 20, maxEntries: 4, replace: true })).toEqual({
      ok: true,
      files: 2,
      directories: 2,
      bytes: 20,
    });
  });

  it("count bytes across directories against maxTotalBytes", async () => {
    await writeSource("a/one.txt", "12345");
    await writeSource("b/two.txt", "12345");
    const refusal = await expectRefused("total_too_large", /^"(a\/one|b\/two)\.txt"$/, { maxTotalBytes: 9 });
    expect(refusal.message).toContain("MAX_HARVEST_TOTAL_BYTES (9)");
  });
});

describe("harvest of a listing that comes in parts while files are copied", () => {
  it("refuses at its record in a later part after earlier parts were copied, in walk order, leaving the destination as it was", async () => {
    // Ten parts' worth of 10-byte files in five directories; the one that takes the total past
    // maxTotalBytes is the second-to-last file in walk order (each directory's names as getdents
    // gives them, which opendir keeps and readdir sorts).
    const directories = 5;
    const perDirectory = 2 * HARVEST_LISTING_PART_RECORDS;
    for (let d = 0; d < directories; d++) {
      await mkdir(path.join(fixture.source, `d${d}`));
      await Promise.all(Array.from({ length: perDirectory }, (_, f) => writeFile(path.join(fixture.source, `d${d}`, `f${f}`), "0123456789")));
    }
    const names = (directory: string): string[] => {
      const found: string[] = [];
      const handle = opendirSync(directory);
      try {
        for (let dirent = handle.readSync(); dirent !== null; dirent = handle.readSync()) found.push(dirent.name);
      } finally {
        handle.closeSync();
      }
      return found;
    };
    const walkOrder = names(fixture.source).flatMap((directory) => names(path.join(fixture.source, directory)).map((name) => `${directory}/${name}`));
    const refusedAt = walkOrder.length - 2;
    const opened: bigint[] = [];
    const letGo = holdCopies(({ step, ino }) => {
      if (step === "open") opened.push(ino);
    });
    let refusal: HarvestRefusal;
    try {
      refusal = await expectRefused("total_too_large", JSON.stringify(walkOrder[refusedAt]), { maxTotalBytes: 10 * refusedAt });
    } finally {
      letGo();
    }
    expect(refusal.message).toContain(`MAX_HARVEST_TOTAL_BYTES (${10 * refusedAt})`);
    // Files of earlier parts were copied before the refusal was met; their copies are gone with the rest.
    expect(opened.length).toBeGreaterThanOrEqual(HARVEST_LISTING_PART_RECORDS);
  });
});

describe("harvest and what is already there", () => {
  it("refuses a destination that holds anything unless asked to replace it, deleting nothing", async () => {
    await seedDestination();
    await writeSource("new.txt", "new\n");
    const before = await snapshot(fixture.root);
    const result = await harvest(fixture.source, fixture.destination);
    expect(result).toMatchObject({ ok: false, refusal: { reason: "destination_not_empty", entry: '"."' } });
    expect(result.ok ? "" : result.refusal.message).toContain("replace: true");
    expect(await snapshot(fixture.root)).toEqual(before);
  });

  it("fills an existing empty destination without being asked to replace it", async () => {
    await mkdir(fixture.destination);
    await writeSource("new.txt", "new\n");
    expect(await harvest(fixture.source, fixture.destination)).toEqual({ ok: true, files: 1, directories: 0, bytes: 4 });
  });
});

describe("harvest and its signal", () => {
  it("stops at the next entry once the signal is aborted, leaving the destination as it was", async () => {
    await writeSource("a.txt", "first");
    await writeSource("b/c.txt", "second");
    const before = await snapshot(fixture.root);
    const controller = new AbortController();
    controller.abort(new Error("the Run timed out after 5 s"));
    const result = await harvest(fixture.source, fixture.destination, { signal: controller.signal });
    expect(result).toMatchObject({ ok: false, refusal: { reason: "interrupted", entry: '"."' } });
    expect(result.ok ? "" : result.refusal.message).toContain("the Run timed out after 5 s");
    expect(await snapshot(fixture.root)).toEqual(before);
  });
});

describe("harvest and its descriptors", () => {
  const openDescriptors = async (): Promise<number> => (await readdir("/proc/self/fd")).length;

  it("leaves none open, whether it copies, refuses in the walk, or refuses after the copies", async () => {
    // A tree of file-less directories (closed as soon as they are listed) and directories with files.
    for (let i = 0; i < 40; i++) await writeSource(`m${i}/src/lib/index.ts`, `export const m${i} = ${i};\n`);
    // Once first, so the listing's worker threads (each with descriptors of its own) have started.
    await harvest(fixture.source, path.join(fixture.root, "warm"));
    const before = await openDescriptors();
    expect(await harvest(fixture.source, fixture.destination)).toMatchObject({ ok: true, files: 40, directories: 120 });
    expect(await openDescriptors()).toBe(before);

    await symlink(fixture.canary, path.join(fixture.source, "m39", "src", "link"));
    expect(await harvest(fixture.source, path.join(fixture.root, "again"))).toMatchObject({ ok: false, refusal: { reason: "symlink" } });
    expect(await openDescriptors()).toBe(before);

    expect(await harvest(fixture.source, path.join(fixture.root, "small"), { maxTotalBytes: 100 })).toMatchObject({
      ok: false,
      refusal: { reason: "total_too_large" },
    });
    expect(await openDescriptors()).toBe(before);
  });
});

describe("harvest arguments", () => {
  it("rejects with HarvestArgumentError for a relative path", async () => {
    await expect(harvest("out", fixture.destination)).rejects.toThrow(HarvestArgumentError);
    await expect(harvest(fixture.source, "dest")).rejects.toThrow(/"dest" is not an absolute path/);
  });

  it("rejects with HarvestArgumentError for a destination inside the source, or containing it", async () => {
    await expect(harvest(fixture.source, path.join(fixture.source, "inner"))).rejects.toThrow(HarvestArgumentError);
    await expect(harvest(fixture.source, fixture.root)).rejects.toThrow(/overlap/);
    await expect(harvest(fixture.source, fixture.source)).rejects.toThrow(/overlap/);
  });

  it("rejects with HarvestArgumentError for a destination that reaches into the source through a link", async () => {
    await symlink(fixture.source, path.join(fixture.root, "alias"));
    await expect(harvest(fixture.source, path.join(fixture.root, "alias", "inner"))).rejects.toThrow(/overlap/);
    await expect(harvest(path.join(fixture.root, "alias"), fixture.source)).rejects.toThrow(/overlap/);
  });

  it("refuses, naming the check, a destination whose links cannot be resolved to rule out an overlap", async () => {
    await writeSource("answer.txt", "42\n");
    await symlink("loop", path.join(fixture.root, "loop"));

    const result = await harvest(fixture.source, path.join(fixture.root, "loop", "dest"));

    expect(result).toMatchObject({ ok: false, refusal: { reason: "io_error", entry: '"."' } });
    expect(result.ok ? "" : result.refusal.message).toMatch(
      /^harvest could not resolve the links of its source and destination to check that neither lies inside the other \(ELOOP in realpath\); pass paths/,
    );
    expect(await readdir(fixture.root)).not.toContain("dest");
  });

  it("accepts a destination whose name only begins like the source's", async () => {
    await writeSource("answer.txt", "42\n");
    expect(await harvest(fixture.source, `${fixture.source}..copy`)).toMatchObject({ ok: true, files: 1 });
  });

  it("rejects with HarvestArgumentError for a limit that is not a non-negative integer", async () => {
    await expect(harvest(fixture.source, fixture.destination, { maxEntries: -1 })).rejects.toThrow(/maxEntries/);
    await expect(harvest(fixture.source, fixture.destination, { maxFileBytes: Number.NaN })).rejects.toThrow(HarvestArgumentError);
  });

  it("rejects options it does not know, a signal that is not an AbortSignal, and extra arguments, naming each", async () => {
    const call = harvest as unknown as (...args: unknown[]) => Promise<unknown>;
    await expect(call(fixture.source, fixture.destination, { maxEntrys: 3 })).rejects.toThrow(/harvest option "maxEntrys" is not one harvest knows/);
    await expect(call(fixture.source, fixture.destination, { signal: "stop" })).rejects.toThrow(/signal "stop" is not an AbortSignal/);
    await expect(call(fixture.source, fixture.destination, "replace")).rejects.toThrow(/harvest options "replace" is not an object/);
    await expect(call(fixture.source, fixture.destination, {}, { replace: true })).rejects.toThrow(/1 more argument\(s\) were given/);
  });
});
