// The warm pool's head start, measured: a trivial claude Run under network policy "model" from
// run() to its Outcome, cold (no pool), warm (a member started ahead, claude started at the claim)
// and warm with claude itself started ahead (the head start), interleaved, after one warm-up each.
// Before every measured Run each runner's pool is full again and the machine settled, so a Run
// never races the making of the member after it. The proxy must take caller-chosen tokens: its image
// (BENCH_EGRESS_IMAGE, default the orchestrator image) built from this tree.

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createAgentRunner, OWNER_LABEL, startEgressGateway, type AgentRunner, type EgressGateway } from "../src/index.js";
import { AGENT_IMAGE, startStandInModel } from "../src/testing/index.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize, type Summary } from "./measure.js";
import { docker, leftoversLabelled } from "./engine-words.js";

const OWNER = "agentcage-bench-head-start";
const DEFAULT_RUNS = 10;
const MAX_RUNS = 200;
const PROMPT = "What is the capital of France? Answer in one sentence.";
const ANSWER = "The capital of France is Paris.";
const KEY = "sk-bench-stand-in-key";
/** Quiet time before each measured Run, once every pool is full: the member made after the last claim has settled. */
const SETTLE_MS = 1500;

function leftovers(): string[] {
  return leftoversLabelled(`${OWNER_LABEL}=${OWNER}`);
}

type Kind = "cold" | "warm" | "head";

async function full(runners: readonly AgentRunner[]): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (runners.every((runner) => runner.pool() === undefined || (runner.pool()?.ready ?? 0) >= 1)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new BenchFailure("a pool did not refill within 30 s");
}

async function timed(runner: AgentRunner, kind: Kind, all: readonly AgentRunner[]): Promise<number> {
  await full(all);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const used = runner.pool()?.headStarts?.used ?? 0;
  const started = performance.now();
  const outcome = await runner.run({ cli: "claude", maxTurns: 5, timeoutSeconds: 120 }, PROMPT);
  const ms = performance.now() - started;
  if (!outcome.ok || outcome.result?.text !== ANSWER)
    throw new BenchFailure(`a ${kind} Run ended ${outcome.reason}: ${outcome.error ?? outcome.result?.error ?? "no message"}`);
  if ((kind === "cold") !== (outcome.warm !== true)) throw new BenchFailure(`a ${kind} Run was served ${outcome.warm === true ? "warm" : "cold"}`);
  if (kind === "head" && (runner.pool()?.headStarts?.used ?? 0) !== used + 1)
    throw new BenchFailure(`a head-start Run did not take its member's claude: ${JSON.stringify(runner.pool()?.headStarts)}`);
  return ms;
}

function line(label: string, s: Summary, cold: Summary): string {
  return `${label.padEnd(30)} median ${s.median.toFixed(0).padStart(5)} ms   p90 ${s.p90.toFixed(0).padStart(5)} ms   min ${s.min.toFixed(0).padStart(5)} ms   ${(s.median / cold.median).toFixed(2)}x cold`;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const silent = pino({ level: "silent" });
  const dir = await mkdtemp(join(os.tmpdir(), "agentcage-bench-head-start-"));
  await mkdir(join(dir, "control"), { mode: 0o700 });
  await mkdir(join(dir, "runs"), { mode: 0o700 });
  const standIn = await startStandInModel("plain", { logger: silent });
  const image = process.env["BENCH_EGRESS_IMAGE"];
  let gateway: EgressGateway | undefined;
  const runners: Partial<Record<Kind, AgentRunner>> = {};
  let failure: string | undefined;
  try {
    gateway = await startEgressGateway({ runtimeDir: join(dir, "control"), standIn: true, logger: silent, ...(image === undefined ? {} : { image }) });
    const make = (pool?: { size: number; headStart: boolean }) =>
      createAgentRunner({
        image: AGENT_IMAGE,
        owner: OWNER,
        logger: silent,
        networkPolicy: "model",
        egress: gateway as EgressGateway,
        environment: { ANTHROPIC_API_KEY: KEY },
        staging: { runtimeDir: join(dir, "runs") },
        ...(pool === undefined ? {} : { pool }),
      });
    runners.cold = make();
    runners.warm = make({ size: 1, headStart: false });
    runners.head = make({ size: 1, headStart: true });
    const all = Object.values(runners);
    const [client, server] = docker("version", "--format", "{{.Client.Version}} {{.Server.Version}}").split(" ");
    console.log(`a trivial claude Run under "model": ${runs} interleaved Runs of each kind, after one warm-up each (which teaches the head start its argv)`);
    console.log(`node ${process.version}, docker client ${client} / engine ${server}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`);
    try {
      const kinds: Kind[] = ["cold", "warm", "head"];
      // The warm-up teaches the head-start runner this request's argv; the member made after it starts claude with it.
      for (const kind of kinds) await timed(runners[kind] as AgentRunner, kind === "head" ? "warm" : kind, all);
      const samples: Record<Kind, number[]> = { cold: [], warm: [], head: [] };
      for (let i = 0; i < runs; i++) for (const kind of kinds) samples[kind].push(await timed(runners[kind] as AgentRunner, kind, all));
      const cold = summarize(samples.cold);
      console.log(line("cold (no pool)", cold, cold));
      console.log(line("warm, claude started at claim", summarize(samples.warm), cold));
      console.log(line("warm, claude started ahead", summarize(samples.head), cold));
      console.log(`head starts: ${JSON.stringify(runners.head.pool()?.headStarts)}`);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  } finally {
    for (const runner of Object.values(runners)) await runner.close();
    await gateway?.close();
    await standIn.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return reportEnd("head-start", leftovers(), failure);
}

runBench(main);
