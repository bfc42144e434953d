// Measures a staged Run's wall time with its files on this disk (runFiles "disk": bind mounts) and
// through the engine (runFiles "engine": volumes filled and read back through its archive), side by
// side in one run, taking turns: a 1-file input, a 2,000-file / 50 MB input, and an agent that
// leaves 1,990 files / 50 MB in out/ for the Harvest. Measured, not asserted: it exits non-zero only
// when a Run was not ok, its Harvest was wrong, or it left a container or volume behind.

import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createAgentContainerRuntime, OWNER_LABEL, type AgentContainerRuntime, type ReaderVerdict } from "../src/index.js";
import type { RunFiles } from "../src/subpaths/runtime.js";
import { docker, leftoversLabelled } from "./engine-words.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize } from "./measure.js";
import { pattern, slice } from "./trees.js";

const OWNER = "agentcage-bench-files";
const TEST_IMAGE = "agentcage-test:latest";
const DEFAULT_RUNS = 5;
const MAX_RUNS = 100;
const WAYS: readonly RunFiles[] = ["disk", "engine"];
/** The larger input: 20 directories of 100 files of 25,000 bytes. */
const LARGE_DIRS = 20;
const LARGE_FILES_PER_DIR = 100;
const LARGE_FILE_BYTES = 25_000;
/** What the writing agent leaves in out/: 10 x 199 files of 25,000 bytes, under the Harvest's 2000 entries and 64 MiB. */
const OUT_DIRS = 10;
const OUT_FILES_PER_DIR = 199;

type Verdict = ReaderVerdict & { readonly text: string };
type Scenario = {
  readonly name: string;
  /** The agent's sh script, run in its work/. */
  readonly script: string;
  readonly inputs: string;
  /** What the Harvest must have copied. */
  readonly harvested: { readonly files: number; readonly bytes: number };
};

function makeInputs(root: string, dirs: number, filesPerDir: number, bytes: number): string {
  const data = pattern();
  mkdirSync(root);
  let index = 0;
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `dir-${String(d).padStart(2, "0")}`);
    mkdirSync(dir);
    for (let f = 0; f < filesPerDir; f++) writeFileSync(join(dir, `file-${String(f).padStart(3, "0")}.txt`), slice(data, index++, bytes));
  }
  return root;
}

function runtimeOf(runtimeDir: string, runFiles: RunFiles): AgentContainerRuntime<Verdict> {
  return createAgentContainerRuntime<Verdict>({
    container: { image: TEST_IMAGE, owner: OWNER, logger: pino({ level: "silent" }), staging: { runtimeDir } },
    run: (prompt) => ({
      args: ["sh", "-c", prompt.text],
      stdin: "",
      outcome: async (stdout) => {
        let text = "";
        for await (const chunk of stdout) text += Buffer.from(chunk).toString();
        return { ok: true, text };
      },
    }),
    runFiles,
  });
}

/** One Run, timed from run() to its Outcome (staging, the container, the copy back and the Harvest). */
async function timedRun(runtime: AgentContainerRuntime<Verdict>, scenario: Scenario, scratch: string, index: number): Promise<number> {
  const harvestTo = join(scratch, `harvest-${index}`);
  const started = performance.now();
  const outcome = await runtime.run({ text: scenario.script }, { inputs: { directory: scenario.inputs }, harvestTo });
  const ms = performance.now() - started;
  if (!outcome.ok) throw new BenchFailure(`${scenario.name}: a Run ended ${outcome.reason}: ${outcome.error ?? ""}`);
  const harvest = outcome.harvest;
  if (harvest?.ok !== true || harvest.files !== scenario.harvested.files || harvest.bytes !== scenario.harvested.bytes) {
    throw new BenchFailure(`${scenario.name}: the Harvest was ${JSON.stringify(harvest)}, not ${JSON.stringify(scenario.harvested)}`);
  }
  await rm(harvestTo, { recursive: true, force: true });
  return ms;
}

function row(name: string, samples: Record<RunFiles, number[]>): string {
  const disk = summarize(samples.disk);
  const engine = summarize(samples.engine);
  const cells = [
    disk.median.toFixed(0).padStart(12),
    disk.p90.toFixed(0).padStart(6),
    engine.median.toFixed(0).padStart(14),
    engine.p90.toFixed(0).padStart(6),
  ];
  return `${name.padEnd(34)}${cells.join("")}${(engine.median / disk.median).toFixed(2).padStart(8)}`;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const scratch = await mkdtemp(join(os.tmpdir(), "agentcage-bench-files-"));
  let failure: string | undefined;
  try {
    const answer = "echo 42 > out/answer.txt";
    const scenarios: Scenario[] = [
      {
        name: "1 input file",
        script: `cat input.txt > /dev/null && ${answer}`,
        inputs: (() => {
          mkdirSync(join(scratch, "small"));
          writeFileSync(join(scratch, "small", "input.txt"), "one small input\n");
          return join(scratch, "small");
        })(),
        harvested: { files: 1, bytes: 3 },
      },
      {
        name: "2,000 input files / 50 MB",
        script: `cat dir-*/* | wc -c > out/answer.txt`,
        inputs: makeInputs(join(scratch, "large"), LARGE_DIRS, LARGE_FILES_PER_DIR, LARGE_FILE_BYTES),
        harvested: { files: 1, bytes: String(LARGE_DIRS * LARGE_FILES_PER_DIR * LARGE_FILE_BYTES).length + 1 },
      },
      {
        name: "1 input, 1,990 files / 50 MB out",
        script: `for d in $(seq 0 ${OUT_DIRS - 1}); do mkdir out/part-$d; for f in $(seq 1 ${OUT_FILES_PER_DIR}); do head -c ${LARGE_FILE_BYTES} /dev/urandom > out/part-$d/file-$f.bin; done; done`,
        inputs: join(scratch, "small"),
        harvested: { files: OUT_DIRS * OUT_FILES_PER_DIR, bytes: OUT_DIRS * OUT_FILES_PER_DIR * LARGE_FILE_BYTES },
      },
    ];
    const runtimes = Object.fromEntries(WAYS.map((way) => [way, runtimeOf(join(scratch, `runs-${way}`), way)])) as Record<
      RunFiles,
      AgentContainerRuntime<Verdict>
    >;
    for (const way of WAYS) mkdirSync(join(scratch, `runs-${way}`));
    await runtimes.disk.sweep();
    console.log(`files: a staged Run with its files on disk and through the engine; ${runs} Runs each after one warm-up, taking turns`);
    console.log(`node ${process.version}, ${os.cpus().length} CPUs, engine ${docker("version", "--format", "{{.Server.Version}}")}, uid ${process.getuid?.()}`);
    console.log(`${"ms".padEnd(34)}${"disk median".padStart(12)}${"p90".padStart(6)}${"engine median".padStart(14)}${"p90".padStart(6)}${"ratio".padStart(8)}`);
    let index = 0;
    for (const scenario of scenarios) {
      const samples: Record<RunFiles, number[]> = { disk: [], engine: [] };
      for (let run = 0; run <= runs; run++) {
        // Taking turns, the first of each a warm-up, not counted; which goes first alternates.
        const order = run % 2 === 0 ? WAYS : [...WAYS].reverse();
        for (const way of order) {
          const ms = await timedRun(runtimes[way], scenario, scratch, index++);
          if (run > 0) samples[way].push(ms);
        }
      }
      console.log(row(scenario.name, samples));
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const volumes = docker("volume", "ls", "--quiet", "--filter", `label=${OWNER_LABEL}=${OWNER}`)
    .split("\n")
    .filter((line) => line !== "");
  if (volumes.length > 0) failure ??= `${volumes.length} volume(s) left: ${volumes.join(" ")}`;
  return reportEnd(`${OWNER_LABEL}=${OWNER} (and ${volumes.length} volumes)`, leftoversLabelled(`${OWNER_LABEL}=${OWNER}`), failure);
}

runBench(main);
