// Harvest of a tree something still changes: a directory swapped for a link to the host mid-walk
// never gets a host file read, and a file that changes while it is copied refuses the harvest. The
// races are made deterministic by wrapping Node's own FileHandle.read for the length of one test.

import { spawn } from "node:child_process";
import { appendFileSync, closeSync, openSync, renameSync, symlinkSync, unlinkSync, writeSync, type BigIntStats } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readdir, readFile, rm, utimes, writeFile, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { harvest } from "./index.js";

const CANARY = "host canary: must never be read into a harvest\n";
const ENTRIES = 64;

type ReadResult = { readonly bytesRead: number; readonly buffer: Buffer };
type Read = (this: FileHandle, ...args: unknown[]) => Promise<ReadResult>;

let root: string;
let source: string;
let host: string;
let restoreRead: (() => void) | undefined;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentcage-harvest-races-"));
  source = path.join(root, "out");
  host = path.join(root, "host");
  await mkdir(path.join(source, "a"), { recursive: true });
  await mkdir(host);
  // The same names in the agent's directory and on the host: a read through a swapped link would find each.
  for (let index = 0; index < ENTRIES; index += 1) {
    const name = `n${String(index).padStart(2, "0")}`;
    await writeFile(path.join(source, "a", name), `the agent's own file ${name}\n`);
    await writeFile(path.join(host, name), CANARY);
  }
});

afterEach(async () => {
  restoreRead?.();
  restoreRead = undefined;
  await rm(root, { recursive: true, force: true });
});

/**
 * Wraps FileHandle.prototype.read: `before` runs with the handle's fstat before each read, `after`
 * with the bytes it returned. Undone after each test.
 */
async function interceptReads(before: (stats: BigIntStats) => void, after: (bytes: Buffer) => void = () => undefined): Promise<void> {
  const probe = await open(path.join(host, "n00"), "r");
  const prototype = Object.getPrototypeOf(probe) as { read: Read };
  await probe.close();
  const original = prototype.read;
  prototype.read = async function (this: FileHandle, ...args: unknown[]): Promise<ReadResult> {
    before(await this.stat({ bigint: true }));
    const result = await original.apply(this, args);
    after(result.buffer.subarray(0, result.bytesRead));
    return result;
  };
  restoreRead = () => {
    prototype.read = original;
  };
}

/** Every file's content under `directory`, found without following links. */
async function contents(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(directory).catch(() => [])) {
    const full = path.join(directory, name);
    const stats = await lstat(full);
    if (stats.isDirectory()) found.push(...(await contents(full)));
    else if (stats.isFile()) found.push(await readFile(full, "utf8"));
  }
  return found;
}

async function inodesOf(directory: string): Promise<Set<bigint>> {
  const inodes = new Set<bigint>();
  for (const name of await readdir(directory)) inodes.add((await lstat(path.join(directory, name), { bigint: true })).ino);
  return inodes;
}

describe("harvest of a directory swapped for a link to the host while it is walked", () => {
  it("never reads a host file, and refuses the changed tree", async () => {
    const agentFiles = await inodesOf(path.join(source, "a"));
    const directory = path.join(source, "a");
    const aside = path.join(source, "a.real");
    let swapped = false;
    let canaryReads = 0;
    // At the first read of one of a/'s files, a/ becomes a link to the host; at the first host
    // bytes read, it is swapped back, so a walk that checks only the directory's name at its end passes.
    await interceptReads(
      (stats) => {
        if (swapped || !agentFiles.has(stats.ino)) return;
        swapped = true;
        renameSync(directory, aside);
        symlinkSync(host, directory);
      },
      (bytes) => {
        if (!bytes.toString("latin1").includes("host canary")) return;
        canaryReads += 1;
        if (canaryReads > 1) return;
        unlinkSync(directory);
        renameSync(aside, directory);
      },
    );
    const destination = path.join(root, "dest");

    const result = await harvest(source, destination);

    expect(swapped).toBe(true);
    expect(canaryReads).toBe(0);
    expect((await contents(destination)).filter((text) => text.includes("host canary"))).toEqual([]);
    expect(result).toMatchObject({ ok: false, refusal: { reason: "changed_during_harvest" } });
    expect(result.ok ? "" : result.refusal.message).toMatch(/^"(a|\.)" changed while it was harvested \(/);
    expect(await readdir(root)).toEqual(["host", "out"]);
  });

  it("never copies a host file while another process keeps swapping it, over many harvests", { timeout: 30_000 }, async () => {
    let canaryReads = 0;
    await interceptReads(
      () => undefined,
      (bytes) => {
        if (bytes.toString("latin1").includes("host canary")) canaryReads += 1;
      },
    );
    // It stops at the end of a round once `stop` exists, so no mv of its outlives it into the
    // cleanup (a SIGKILL to sh alone would leave its running child to finish after it); bounded by
    // its own count too, so a test process that dies cannot leave it running.
    const stop = path.join(root, "stop");
    const swap = 'cd "$1" && i=0 && while [ $i -lt 20000 ] && [ ! -e "$3" ]; do mv a a.real && ln -s "$2" a && rm a && mv a.real a; i=$((i+1)); done';
    const swapper = spawn("sh", ["-c", swap, "swapper", source, host, stop], { stdio: "ignore" });
    const exited = new Promise((resolve) => swapper.once("exit", resolve));
    let attempts = 0;
    try {
      const deadline = performance.now() + 3_000;
      for (; attempts < 200 && performance.now() < deadline; attempts += 1) {
        const destination = path.join(root, `dest-${attempts}`);
        // Any outcome will do (the swapper may leave a/ missing or a link), except one with a host file in it.
        await harvest(source, destination);
        expect((await contents(destination)).filter((text) => text.includes("host canary"))).toEqual([]);
      }
    } finally {
      await writeFile(stop, "");
      await exited;
    }
    expect(canaryReads).toBe(0);
    expect(attempts).toBeGreaterThan(5);
  });
});

describe("harvest of a directory that changes after it was listed", () => {
  it("refuses a directory that gains a file while the files in it are copied, naming it", async () => {
    const added = path.join(source, "a", "late.txt");
    let written = false;
    await interceptReads(() => {
      if (written) return;
      written = true;
      appendFileSync(added, "written after a/ was listed\n");
    });

    const result = await harvest(source, path.join(root, "dest"));

    expect(written).toBe(true);
    expect(result).toEqual({
      ok: false,
      refusal: {
        reason: "changed_during_harvest",
        entry: '"a"',
        message:
          '"a" changed while it was harvested (an entry was added, removed or renamed in it, or its mode changed, while its files were copied); harvest only a tree nothing writes to any more, after the container is gone',
      },
    });
    expect(await readdir(root)).toEqual(["host", "out"]);
  });
});

describe("harvest of a file that changes while it is copied", () => {
  const big = (): string => path.join(source, "a", "big.bin");

  beforeEach(async () => {
    await rm(path.join(source, "a"), { recursive: true });
    await mkdir(path.join(source, "a"));
    await writeFile(big(), Buffer.alloc(1024 * 1024, 0x61));
  });

  it("refuses a file that grows during its copy, leaving the destination as it was", async () => {
    const target = (await lstat(big(), { bigint: true })).ino;
    let grown = false;
    await interceptReads((stats) => {
      if (grown || stats.ino !== target) return;
      grown = true;
      appendFileSync(big(), Buffer.alloc(4096, 0x62));
    });
    const destination = path.join(root, "dest");
    await mkdir(destination);
    await writeFile(path.join(destination, "previous.txt"), "from an earlier harvest\n");

    const result = await harvest(source, destination, { replace: true });

    expect(grown).toBe(true);
    expect(result).toEqual({
      ok: false,
      refusal: {
        reason: "changed_during_harvest",
        entry: '"a/big.bin"',
        message:
          '"a/big.bin" changed while it was harvested (its size went from 1048576 to 1052672 bytes while it was copied); harvest only a tree nothing writes to any more, after the container is gone',
      },
    });
    expect(await readdir(destination)).toEqual(["previous.txt"]);
    expect(await readdir(root)).toEqual(["dest", "host", "out"]);
  });

  it("refuses a file rewritten in place during its copy, its size unchanged", async () => {
    // Times from the past, so the rewrite's times differ however coarse the file system's clock.
    await utimes(big(), new Date("2020-01-01T00:00:00Z"), new Date("2020-01-01T00:00:00Z"));
    const target = (await lstat(big(), { bigint: true })).ino;
    let rewritten = false;
    await interceptReads((stats) => {
      if (rewritten || stats.ino !== target) return;
      rewritten = true;
      const descriptor = openSync(big(), "r+");
      writeSync(descriptor, Buffer.alloc(1024 * 1024, 0x7a), 0, 1024 * 1024, 0);
      closeSync(descriptor);
    });

    const result = await harvest(source, path.join(root, "dest"));

    expect(rewritten).toBe(true);
    expect(result).toMatchObject({ ok: false, refusal: { reason: "changed_during_harvest", entry: '"a/big.bin"' } });
    expect(result.ok ? "" : result.refusal.message).toContain("(it was modified while it was copied)");
    expect(await readdir(root)).toEqual(["host", "out"]);
  });

  it("copies the same file when nothing touches it", async () => {
    expect(await harvest(source, path.join(root, "dest"))).toEqual({ ok: true, files: 1, directories: 1, bytes: 1024 * 1024 });
  });
});
