// Hostile agents against the real engine: each plants one thing in out/ that the Harvest must
// refuse. The refusal names it, the caller's destination stays exactly as it was, and a host
// canary the planted links point at is never read into the harvest nor changed. Then harvest()
// called on an out/ a container is still changing: no host file through a swapped link, no file
// harvested while it grows.

import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime, harvest } from "../../index.js";
import { TEST_IMAGE, capturingLogger, containersOfRun, docker } from "../../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-hostile-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const canary = join(scratch, "canary.txt");
writeFileSync(canary, "host canary\n");
const inputs = join(scratch, "inputs");
mkdirSync(inputs);
writeFileSync(join(inputs, "README.md"), "read me\n");

const runtime = createAgentContainerRuntime({
  container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir: join(scratch, "runs") }, timeoutSeconds: 60 },
  run: (prompt) => ({
    args: ["sh", "-c", prompt.text],
    stdin: "",
    outcome: async (stdout) => {
      for await (const _chunk of stdout) {
        /* drain */
      }
      return { ok: true };
    },
  }),
});

/** What the agent did, the script that does it, the refusal's reason, and its entry (a pattern). */
const plants: ReadonlyArray<readonly [string, string, string, RegExp]> = [
  ["an absolute symlink to a host canary", `ln -s ${canary} out/link`, "symlink", /^"link"$/],
  ["a relative ../ symlink", "ln -s ../../../canary.txt out/up", "symlink", /^"up"$/],
  ["a symlinked directory", `mkdir out/real && ln -s ${scratch} out/real/dir`, "symlink", /^"real\/dir"$/],
  [
    "a hardlink (an input's cannot cross mounts, so one inside out/)",
    "echo a > out/a; ln README.md out/input-link 2>/dev/null || ln out/a out/b",
    "hardlink",
    /^"[ab]"$/,
  ],
  ["a FIFO", "mkfifo out/fifo", "special_file", /^"fifo"$/],
  ["a unix socket", "mksock out/sock", "special_file", /^"sock"$/],
  ["a sparse 1 TiB file", "truncate -s 1099511627776 out/sparse", "file_too_large", /^"sparse"$/],
  ["a 9-deep tree", "mkdir -p out/1/2/3/4/5/6/7/8/9 && echo deep > out/1/2/3/4/5/6/7/8/9/f", "too_deep", /^"1\/2\/3\/4\/5\/6\/7\/8\/9"$/],
  ["2001 files", "i=0; while [ $i -lt 2001 ]; do : > out/f$i; i=$((i+1)); done", "too_many_entries", /^"(f\d+|fine\.txt)"$/],
  ["a 9 MiB file", "head -c 9437184 /dev/zero > out/big", "file_too_large", /^"big"$/],
  ["a setuid file", "echo x > out/suid && chmod 4755 out/suid", "special_mode", /^"suid"$/],
  ["a 0000-mode file", "echo x > out/locked && chmod 000 out/locked", "unreadable", /^"locked"$/],
];

describe("a harvest of what a hostile agent planted", () => {
  it.each(plants)("refuses %s, naming it, with the destination and the canary unchanged", async (_what, script, reason, entry) => {
    const destination = join(scratch, `dest-${reason}-${Math.random().toString(16).slice(2)}`);
    mkdirSync(destination);
    writeFileSync(join(destination, "previous.txt"), "from an earlier harvest\n");
    const outcome = await runtime.run(
      { text: `echo fine > out/fine.txt; ${script}` },
      { inputs: { directory: inputs }, harvestTo: destination, replaceHarvestTo: true },
    );
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason } } });
    const refusal = (outcome.harvest as { refusal: { entry: string; message: string } }).refusal;
    expect(refusal.entry).toMatch(entry);
    expect(outcome.error).toBe(refusal.message);
    expect(readdirSync(destination)).toEqual(["previous.txt"]);
    expect(readFileSync(join(destination, "previous.txt"), "utf8")).toBe("from an earlier harvest\n");
    expect(readdirSync(scratch).filter((n) => n.includes(".harvest-") || n.includes(".old-"))).toEqual([]);
    expect(readFileSync(canary, "utf8")).toBe("host canary\n");
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});

/** Every file's content under `directory`, found without following links. */
function contents(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const full = join(directory, name);
    const stats = lstatSync(full);
    if (stats.isDirectory()) return contents(full);
    return stats.isFile() ? [readFileSync(full, "latin1")] : [];
  });
}

/** Counts reads, by any FileHandle of this process, that return `marker`, until the returned stop is called. */
async function countReadsOf(marker: string): Promise<{ readonly count: () => number; readonly stop: () => void }> {
  type Read = (this: FileHandle, ...args: unknown[]) => Promise<{ bytesRead: number; buffer: Buffer }>;
  const probe = await open(canary, "r");
  const prototype = Object.getPrototypeOf(probe) as { read: Read };
  await probe.close();
  const original = prototype.read;
  let count = 0;
  prototype.read = async function (this: FileHandle, ...args: unknown[]) {
    const result = await original.apply(this, args);
    if (result.buffer.subarray(0, result.bytesRead).toString("latin1").includes(marker)) count += 1;
    return result;
  };
  return { count: () => count, stop: () => void (prototype.read = original) };
}

/** Runs `script` in a container with `out` mounted at /out while `body` runs, then removes it. */
async function whileContainerRuns<T>(out: string, script: string, body: () => Promise<T>): Promise<T> {
  const id = docker("run", "--detach", "--network", "none", "--volume", `${out}:/out`, TEST_IMAGE, "sh", "-c", script);
  try {
    return await body();
  } finally {
    docker("rm", "--force", id);
  }
}

describe("harvest() of an out/ a container is still changing", () => {
  it("never copies a host file through a directory the container keeps swapping for a link to it", { timeout: 60_000 }, async () => {
    const live = join(scratch, "live-swap");
    const hostFiles = join(scratch, "host-files");
    mkdirSync(join(live, "a"), { recursive: true });
    mkdirSync(hostFiles);
    for (let index = 0; index < 64; index += 1) {
      writeFileSync(join(live, "a", `n${index}`), `the agent's own file ${index}\n`);
      writeFileSync(join(hostFiles, `n${index}`), "host canary\n");
    }
    // The link's text is a host path: meaningless in the container, followed on the host by a harvest that follows links.
    const swapper = `cd /out && i=0 && while [ $i -lt 100000 ]; do mv a a.real && ln -s ${hostFiles} a && rm a && mv a.real a; i=$((i+1)); done`;
    const hostReads = await countReadsOf("host canary");
    const reasons = await whileContainerRuns(live, swapper, async () => {
      const seen: string[] = [];
      const deadline = performance.now() + 5_000;
      for (let attempt = 0; performance.now() < deadline; attempt += 1) {
        const destination = join(scratch, `dest-swap-${attempt}`);
        const result = await harvest(live, destination);
        seen.push(result.ok ? "ok" : result.refusal.reason);
        expect(contents(destination).filter((text) => text.includes("host canary"))).toEqual([]);
      }
      return seen;
    }).finally(hostReads.stop);
    expect(hostReads.count()).toBe(0);
    expect(reasons.length).toBeGreaterThan(5);
    expect(reasons).toContain("changed_during_harvest");
    expect(readFileSync(canary, "utf8")).toBe("host canary\n");
  });

  it("refuses a file the container keeps appending to as changed while it was harvested", { timeout: 60_000 }, async () => {
    const live = join(scratch, "live-grow");
    mkdirSync(live);
    writeFileSync(join(live, "log.txt"), "x".repeat(1024 * 1024));
    const appender = "cd /out && i=0 && while [ $i -lt 2000000 ]; do echo x >> log.txt; i=$((i+1)); done";
    const results = await whileContainerRuns(live, appender, async () => {
      const seen = [];
      for (let attempt = 0; attempt < 20; attempt += 1) seen.push(await harvest(live, join(scratch, `dest-grow-${attempt}`)));
      return seen;
    });
    expect(results.filter((result) => !result.ok && result.refusal.reason === "changed_during_harvest").length).toBeGreaterThan(0);
    for (const result of results) {
      if (result.ok) continue;
      expect(result.refusal).toMatchObject({ reason: "changed_during_harvest", entry: '"log.txt"' });
      expect(result.refusal.message).toMatch(/^"log\.txt" changed while it was harvested \(/);
    }
  });
});
