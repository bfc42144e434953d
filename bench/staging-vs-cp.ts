// Measures the wall time of staging a 10,000-file input tree (prepareRunDirectory) and of
// harvesting 2000 entries / just under 64 MiB (harvest) against `cp -a` of the same trees, in the
// same run, on the same file system. Measured, not asserted: it prints the ratios and exits non-zero
// only when a copy went wrong (a throw, a refusal, a cp that did not exit 0, a tree that differs).
// No copy is removed before the end: on ext4 without a journal, every file created within 60 s of
// a delete (300 s until written back) steps over the recently deleted inodes, which swamps both ways.

import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MAX_HARVEST_ENTRIES, MAX_HARVEST_FILE_BYTES, MAX_HARVEST_TOTAL_BYTES, harvest } from "../src/staging/harvest/index.js";
import { prepareRunDirectory } from "../src/staging/index.js";
import { checkedCopy } from "./checked-copy.js";
import { BenchFailure, parseRuns, runBench } from "./measure.js";
import {
  checkFreeSpace,
  diskBytes,
  inScratch,
  machineLine,
  makeMonorepoTree,
  pattern,
  report,
  rssMiB,
  sameTally,
  slice,
  sync,
  tallyTree,
  textPattern,
  time,
  timedCpArchive,
  type Tally,
} from "./trees.js";

const DEFAULT_RUNS = 5;
const MAX_RUNS = 1000;
/** The input tree: INPUT_TOP x INPUT_SUB directories of INPUT_FILES_PER_DIR files each. */
const INPUT_TOP = 10;
const INPUT_SUB = 10;
const INPUT_FILES_PER_DIR = 100;
/** Input files are 0 to this many bytes, spread evenly by a fixed formula. */
const INPUT_MAX_FILE_BYTES = 8 * 1024;
/** The harvest source: HARVEST_DIRS directories of HARVEST_FILES_PER_DIR files, 2000 entries in all. */
const HARVEST_DIRS = 10;
const HARVEST_FILES_PER_DIR = 199;
/** Harvest files are this size give or take HARVEST_FILE_SPREAD_BYTES, just under 64 MiB in all. */
const HARVEST_FILE_BYTES = 33_600;
const HARVEST_FILE_SPREAD_BYTES = 2048;
const OWNER = "agentcage-bench";
const AGENT_USER = "10002:10002";

/** 10,000 files of 0 to 8 KiB in 10 x 10 directories: a source tree of a middling project. */
function makeInputTree(root: string, bytes: Buffer): Tally {
  let files = 0;
  let total = 0;
  mkdirSync(root);
  for (let top = 0; top < INPUT_TOP; top++) {
    const topDir = path.join(root, `pkg-${String(top).padStart(2, "0")}`);
    mkdirSync(topDir);
    for (let sub = 0; sub < INPUT_SUB; sub++) {
      const subDir = path.join(topDir, `mod-${String(sub).padStart(2, "0")}`);
      mkdirSync(subDir);
      for (let f = 0; f < INPUT_FILES_PER_DIR; f++) {
        const size = (files * 2_654_435_761) % (INPUT_MAX_FILE_BYTES + 1);
        writeFileSync(path.join(subDir, `file-${String(f).padStart(3, "0")}.ts`), slice(bytes, files, size), { mode: 0o644 });
        files += 1;
        total += size;
      }
    }
  }
  return { files, directories: INPUT_TOP * (1 + INPUT_SUB), bytes: total };
}

/** 1990 files of about 32 KiB in 10 directories: 2000 entries, just under 64 MiB. */
function makeHarvestTree(root: string, bytes: Buffer): Tally {
  let files = 0;
  let total = 0;
  mkdirSync(root);
  for (let d = 0; d < HARVEST_DIRS; d++) {
    const dir = path.join(root, `part-${d}`);
    mkdirSync(dir);
    for (let f = 0; f < HARVEST_FILES_PER_DIR; f++) {
      const size = HARVEST_FILE_BYTES + ((files * 7919) % (2 * HARVEST_FILE_SPREAD_BYTES + 1)) - HARVEST_FILE_SPREAD_BYTES;
      writeFileSync(path.join(dir, `chunk-${String(f).padStart(3, "0")}.bin`), slice(bytes, files, size), { mode: 0o644 });
      files += 1;
      total += size;
    }
  }
  const tally = { files, directories: HARVEST_DIRS, bytes: total };
  if (
    tally.files + tally.directories > MAX_HARVEST_ENTRIES ||
    tally.bytes > MAX_HARVEST_TOTAL_BYTES ||
    HARVEST_FILE_BYTES + HARVEST_FILE_SPREAD_BYTES > MAX_HARVEST_FILE_BYTES
  ) {
    throw new BenchFailure(`the harvest tree (${JSON.stringify(tally)}) breaks a harvest limit; shrink HARVEST_FILE_BYTES or HARVEST_FILES_PER_DIR`);
  }
  return tally;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  return inScratch("agentcage-bench-staging-", async (scratch) => {
    console.log(`staging and harvest vs cp -a: ${runs} interleaved runs each, after one warm-up each, under ${scratch}`);
    console.log(machineLine(scratch));

    const bytes = pattern();
    const input = path.join(scratch, "input");
    const source = path.join(scratch, "out");
    const inputTally = makeInputTree(input, bytes);
    const harvestTally = makeHarvestTree(source, bytes);
    const monorepo = path.join(scratch, "monorepo");
    const monorepoTally = makeMonorepoTree(monorepo, textPattern());
    const runtimeDir = path.join(scratch, "runs");
    const copies = path.join(scratch, "copies");
    mkdirSync(runtimeDir, { mode: 0o700 });
    mkdirSync(copies);
    sync();
    const needed = 2 * (runs + 1) * (diskBytes(input) + diskBytes(source) + diskBytes(monorepo));
    checkFreeSpace(scratch, needed, runs);
    console.log(`peak RSS after making the trees: ${rssMiB()} MiB; the copies will take about ${(needed / 1e9).toFixed(1)} GB until the end`);

    let n = 0;
    const fresh = (): string => path.join(copies, `c${n++}`);

    // Staging: prepareRunDirectory copies the tree into <runId>/work/ (0444 files, an empty out/).
    const stageOursOf =
      (tree: string, tally: Tally) =>
      async (check: boolean): Promise<number> => {
        const runId = randomBytes(8).toString("hex");
        const ms = await time(async () => {
          await prepareRunDirectory({
            runtimeDir,
            runId,
            owner: OWNER,
            inputs: { directory: tree },
            promptText: "ping\n",
            writableWork: false,
            agentUser: AGENT_USER,
          });
        });
        const root = path.join(runtimeDir, runId);
        // work/ holds the inputs plus the agent's empty out/.
        if (check) sameTally("the staged work/", tallyTree(path.join(root, "work")), { ...tally, directories: tally.directories + 1 });
        sync();
        return ms;
      };
    const stageOurs = stageOursOf(input, inputTally);
    const stageCp = timedCpArchive(input, inputTally, fresh);
    const harvestOurs = async (check: boolean): Promise<number> => {
      const destination = fresh();
      const started = performance.now();
      const result = await harvest(source, destination);
      const ms = performance.now() - started;
      if (!result.ok) throw new BenchFailure(`harvest refused: ${result.refusal.reason} at ${result.refusal.entry}: ${result.refusal.message}`);
      sameTally("harvest's result", result, harvestTally);
      if (check) sameTally("the harvested tree", tallyTree(destination), harvestTally);
      sync();
      return ms;
    };
    const harvestFloor = async (): Promise<number> => {
      const destination = fresh();
      const ms = await time(() => checkedCopy(source, destination));
      sync();
      return ms;
    };
    const harvestCp = timedCpArchive(source, harvestTally, fresh);

    const interleave = async (
      ours: (check: boolean) => Promise<number>,
      cp: (check: boolean) => Promise<number>,
      floor?: () => Promise<number>,
    ): Promise<[number[], number[], number[]]> => {
      // The warm-ups are not counted; they are the ones whose trees are checked entry by entry.
      await ours(true);
      await cp(true);
      await floor?.();
      const [a, b, c]: [number[], number[], number[]] = [[], [], []];
      for (let i = 0; i < runs; i++) {
        a.push(await ours(false));
        b.push(await cp(false));
        if (floor !== undefined) c.push(await floor());
      }
      return [a, b, c];
    };

    // The monorepo goes last: its copies (gigabytes, kept to the end) slow every later copy, both ways.
    const [stageOursMs, stageCpMs] = await interleave(stageOurs, stageCp);
    report("staging", inputTally, ["prepareRunDirectory", stageOursMs], stageCpMs);
    const [harvestOursMs, harvestCpMs, harvestFloorMs] = await interleave(harvestOurs, harvestCp, harvestFloor);
    report("harvest", harvestTally, ["harvest()", harvestOursMs], harvestCpMs, [["checked copy (floor)", harvestFloorMs]]);
    const [monoOursMs, monoCpMs] = await interleave(stageOursOf(monorepo, monorepoTally), timedCpArchive(monorepo, monorepoTally, fresh));
    report("staging a monorepo-like tree", monorepoTally, ["prepareRunDirectory", monoOursMs], monoCpMs);
    console.log("");
    console.log(`peak RSS of this process at the end: ${rssMiB()} MiB`);
  });
}

runBench(main);
