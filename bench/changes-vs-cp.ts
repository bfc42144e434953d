// Measures harvesting the change set of a large writable workspace: the 100,000-file monorepo-like
// tree is staged writable, a stand-in for the agent edits, adds and deletes a few hundred files (then,
// in a second workspace, edits one file in each of 1,000 directories, as a codemod does), and
// harvestChanges (walk work/ against the manifest, copy and diff what changed, harvest that) is
// timed against `cp -a` of the whole work/, what a user without a change set copies out; with, for
// scale, `find -printf` statting every entry (the least any walk for changes costs) and
// takeManifest, which each writable Run pays at its start. Measured, not asserted: it exits non-zero
// only when a copy went wrong. No copy is removed before the end (see staging-vs-cp.ts for why).

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { harvestChanges, prepareRunDirectory, takeManifest } from "../src/staging/index.js";
import { BenchFailure, parseRuns, runBench } from "./measure.js";
import {
  checkFreeSpace,
  diskBytes,
  inScratch,
  isLargeMonorepoFile,
  machineLine,
  makeMonorepoTree,
  report,
  rssMiB,
  sameTally,
  slice,
  sync,
  tallyTree,
  textPattern,
  time,
  timedCpArchive,
} from "./trees.js";

const DEFAULT_RUNS = 5;
const MAX_RUNS = 1000;
/** The agent edits one file in CHANGED_EVERY (one line inserted in its middle)... */
const CHANGED_EVERY = 500;
/** ...and the first LARGE_CHANGED of the large ones (256 KiB to 1 MiB), */
const LARGE_CHANGED = 5;
/** deletes one in DELETED_EVERY, */
const DELETED_EVERY = 2000;
/** and adds ADDED files of 0 to 4 KiB in a directory of its own. */
const ADDED = 100;
const ADDED_DIRECTORY = "packages/pkg-0/src/generated";
const OWNER = "agentcage-bench";
const AGENT_USER = "10002:10002";

/** In the second workspace the agent edits one file in each of this many directories, as a codemod across modules does. */
const CODEMOD_DIRECTORIES = 1000;

type Expected = { readonly changed: number; readonly added: number; readonly deleted: number };

/** One line inserted in the middle of the file: what an edit is here. */
function editMiddle(file: string): void {
  const before = readFileSync(file, "latin1");
  const middle = before.indexOf("\n", before.length >> 1) + 1;
  writeFileSync(file, `${before.slice(0, middle)}// edited by the agent\n${before.slice(middle)}`, "latin1");
}

/** What the stand-in agent does to the staged tree; the same on every run: a few hundred changes, most in a few places. */
function actAsAgent(work: string, paths: readonly string[], text: Buffer): Expected {
  let changed = 0;
  let deleted = 0;
  paths.forEach((rel, index) => {
    const file = path.join(work, rel);
    if (index % CHANGED_EVERY === CHANGED_EVERY / 2 || (isLargeMonorepoFile(index) && index < LARGE_CHANGED * 200)) {
      editMiddle(file);
      changed += 1;
    } else if (index % DELETED_EVERY === DELETED_EVERY / 2) {
      unlinkSync(file);
      deleted += 1;
    }
  });
  mkdirSync(path.join(work, ADDED_DIRECTORY));
  for (let k = 0; k < ADDED; k++) writeFileSync(path.join(work, ADDED_DIRECTORY, `generated-${k}.ts`), slice(text, k, (k * 2_654_435_761) % (4 * 1024 + 1)));
  return { changed, added: ADDED, deleted };
}

/** The other agent: one small file edited in each of the first CODEMOD_DIRECTORIES directories that hold one, so the change set mirrors as many directories. */
function actAsCodemod(work: string, paths: readonly string[]): Expected {
  const edited = new Set<string>();
  paths.forEach((rel, index) => {
    const directory = path.dirname(rel);
    if (edited.size >= CODEMOD_DIRECTORIES || edited.has(directory) || isLargeMonorepoFile(index)) return;
    editMiddle(path.join(work, rel));
    edited.add(directory);
  });
  if (edited.size < CODEMOD_DIRECTORIES) throw new BenchFailure(`the tree has only ${edited.size} directories with files; lower CODEMOD_DIRECTORIES`);
  return { changed: edited.size, added: 0, deleted: 0 };
}

/** `find <root> -printf '%i %s %C@\n'` into nothing: every entry lstat'ed, by one C process. */
function statWalk(root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("find", [root, "-printf", "%i %s %C@\\n"], { stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new BenchFailure(`find ${root} exited ${code}`))));
  });
}

type Agent = { readonly title: string; readonly act: (work: string, paths: readonly string[], text: Buffer) => Expected };

const AGENTS: readonly Agent[] = [
  { title: "the change set of a writable monorepo-like workspace", act: actAsAgent },
  { title: `the change set of a codemod: one file in each of ${CODEMOD_DIRECTORIES} directories`, act: (work, paths) => actAsCodemod(work, paths) },
];

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  return inScratch("agentcage-bench-changes-", async (scratch) => {
    console.log(`harvesting the change set of a writable workspace vs cp -a of it: ${runs} interleaved runs each, after one warm-up each, under ${scratch}`);
    console.log(machineLine(scratch));
    const text = textPattern();
    const monorepo = path.join(scratch, "monorepo");
    const tree = makeMonorepoTree(monorepo, text);
    const runtimeDir = path.join(scratch, "runs");
    const copies = path.join(scratch, "copies");
    mkdirSync(runtimeDir, { mode: 0o700 });
    mkdirSync(copies);
    let n = 0;
    const fresh = (): string => path.join(copies, `c${n++}`);
    for (const agent of AGENTS) {
      const runId = randomBytes(8).toString("hex");
      await prepareRunDirectory({
        runtimeDir,
        runId,
        owner: OWNER,
        inputs: { directory: monorepo },
        promptText: "ping\n",
        writableWork: true,
        agentUser: AGENT_USER,
      });
      const work = path.join(runtimeDir, runId, "work");
      const manifest = await takeManifest(work);
      const expected = agent.act(work, tree.paths, text);
      const workTally = tallyTree(work);
      sync();
      const needed = (runs + 1) * diskBytes(work);
      checkFreeSpace(scratch, needed, runs);
      console.log(`staged ${tree.files} files writable; the agent changed ${expected.changed}, added ${expected.added} and deleted ${expected.deleted}`);
      console.log(`peak RSS after making the trees: ${rssMiB()} MiB; the copies will take about ${(needed / 1e9).toFixed(1)} GB more`);

      const ours = async (check: boolean): Promise<number> => {
        const destination = fresh();
        let result: Awaited<ReturnType<typeof harvestChanges>> | undefined;
        const ms = await time(async () => {
          result = await harvestChanges(work, { manifest, originals: { directory: monorepo } }, fresh(), destination);
        });
        if (result === undefined || !result.ok) throw new BenchFailure(`harvestChanges refused: ${JSON.stringify(result)}`);
        const got = { changed: result.changes?.changed.length, added: result.changes?.added.length, deleted: result.changes?.deleted.length };
        if (JSON.stringify(got) !== JSON.stringify(expected))
          throw new BenchFailure(`harvestChanges found ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
        if (check)
          sameTally(
            "the harvested files/",
            { ...tallyTree(path.join(destination, "files")), directories: 0 },
            { files: expected.changed + expected.added, directories: 0, bytes: result.changes?.bytes ?? -1 },
          );
        sync();
        return ms;
      };
      const cp = timedCpArchive(work, workTally, fresh);
      const samples = { ours: [] as number[], cp: [] as number[], find: [] as number[], manifest: [] as number[] };
      // The warm-ups are not counted; they are the ones whose trees are checked entry by entry.
      await ours(true);
      await cp(true);
      for (let i = 0; i < runs; i++) {
        samples.ours.push(await ours(false));
        samples.cp.push(await cp(false));
        samples.find.push(await time(() => statWalk(work)));
        samples.manifest.push(await time(async () => void (await takeManifest(work))));
      }
      report(agent.title, workTally, ["harvestChanges", samples.ours], samples.cp, [
        ["find -printf (stat walk)", samples.find],
        ["takeManifest (Run start)", samples.manifest],
      ]);
      console.log("");
    }
    console.log(`peak RSS of this process at the end: ${rssMiB()} MiB`);
  });
}

runBench(main);
