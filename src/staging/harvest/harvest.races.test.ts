// Harvest of a tree something still changes: a directory swapped for a link to the host mid-walk
// never gets a host file read, a file swapped between its check and its copy is refused, and a file
// that changes while it is copied refuses the harvest. The races are made deterministic by holding
// the copy workers at each open and each read (holdCopies) for the length of one test.

import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, closeSync, openSync, renameSync, symlinkSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { holdCopies, type CopyStep } from "./copy.js";
import { harvest } from "./index.js";

const CANARY = "host canary: must never be read into a harvest\n";
const ENTRIES = 64;

let root: string;
let source: string;
let host: string;
let release: (() => void) | undefined;

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
  const letGo = release;
  release = undefined;
  try {
    letGo?.();
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

/** Holds the harvest's copies at each step: `onStep` runs before each open and each read, with the file's inode. Let go after each test. */
function hold(onStep: (step: CopyStep) => void): void {
  release = holdCopies(onStep);
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
    const hostFiles = await inodesOf(host);
    const directory = path.join(source, "a");
    const aside = path.join(source, "a.real");
    let swapped = false;
    let canaryReads = 0;
    // At the first read of one of a/'s files, a/ becomes a link to the host; at the first read of a
    // host file, it is swapped back, so a walk that checks only the directory's name at its end passes.
    hold(({ step, ino }) => {
      if (step !== "read") return;
      if (hostFiles.has(ino)) {
        canaryReads += 1;
        if (canaryReads > 1) return;
        unlinkSync(directory);
        renameSync(aside, directory);
        return;
      }
      if (swapped || !agentFiles.has(ino)) return;
      swapped = true;
      renameSync(directory, aside);
      symlinkSync(host, directory);
    });
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
    const hostFiles = await inodesOf(host);
    let canaryReads = 0;
    hold(({ step, ino }) => {
      if (step === "read" && hostFiles.has(ino)) canaryReads += 1;
    });
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

describe("harvest of a file swapped after it was listed, just before it is opened", () => {
  const last = (): string => path.join(source, "a", `n${ENTRIES - 1}`);

  /** Swaps a/n63 by `swap` when the copy is about to open it (by the inode the listing saw), and harvests. */
  async function harvestSwapping(swap: () => void): Promise<{ swapped: boolean; hostReads: number; result: Awaited<ReturnType<typeof harvest>> }> {
    const listed = (await lstat(last(), { bigint: true })).ino;
    const hostFiles = await inodesOf(host);
    let swapped = false;
    let hostReads = 0;
    hold(({ step, ino }) => {
      if (step === "read" && hostFiles.has(ino)) hostReads += 1;
      if (swapped || step !== "open" || ino !== listed) return;
      swapped = true;
      swap();
    });
    const result = await harvest(source, path.join(root, "dest"));
    return { swapped, hostReads, result };
  }

  const refusal = (message: string): unknown => ({
    ok: false,
    refusal: {
      reason: "changed_during_harvest",
      entry: `"a/n${ENTRIES - 1}"`,
      message: `"a/n${ENTRIES - 1}" changed while it was harvested (${message}); harvest only a tree nothing writes to any more, after the container is gone`,
    },
  });

  it("refuses a file swapped for a link to a host file, never reading the host file", async () => {
    const { swapped, hostReads, result } = await harvestSwapping(() => {
      unlinkSync(last());
      symlinkSync(path.join(host, `n${ENTRIES - 1}`), last());
    });

    expect(swapped).toBe(true);
    expect(hostReads).toBe(0);
    expect(result).toEqual(refusal("it was removed or replaced by something that is not a regular file before it was opened"));
    expect(await readdir(root)).toEqual(["host", "out"]);
  });

  it("refuses a file replaced by another regular file, never copying the other", async () => {
    const { swapped, hostReads, result } = await harvestSwapping(() => {
      const replacement = path.join(source, "replacement");
      writeFileSync(replacement, CANARY);
      renameSync(replacement, last());
    });

    expect(swapped).toBe(true);
    expect(hostReads).toBe(0);
    expect(result).toEqual(refusal("it was replaced by another file or directory before it was opened"));
    expect(await readdir(root)).toEqual(["host", "out"]);
  });

  it("refuses a file replaced by a FIFO, without hanging in open", { timeout: 10_000 }, async () => {
    const { swapped, result } = await harvestSwapping(() => {
      unlinkSync(last());
      const made = spawnSync("mkfifo", [last()]);
      if (made.status !== 0) throw new Error(`mkfifo exited ${made.status}`);
    });

    expect(swapped).toBe(true);
    expect(result).toEqual(refusal("it was replaced by something that is not a regular file before it was opened"));
    expect(await readdir(root)).toEqual(["host", "out"]);
  });
});

describe("harvest of a directory that changes after it was listed", () => {
  it("refuses a directory that gains a file while the files in it are copied, naming it", async () => {
    const added = path.join(source, "a", "late.txt");
    let written = false;
    hold(({ step }) => {
      if (written || step !== "read") return;
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
    hold(({ step, ino }) => {
      if (grown || step !== "read" || ino !== target) return;
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
    hold(({ step, ino }) => {
      if (rewritten || step !== "read" || ino !== target) return;
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
