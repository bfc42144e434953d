// Measures the warm pool against cold starts, side by side in one run: a trivial claude Run (the
// real CLI in the agent image, the stand-in model) from run() to its result record and to its Outcome
// under the `model` policy and under `none`, a no-op Run of the test image through the runtime, and the
// claude `model` Run through a real `agentcage serve` (warm-service.ts) to its result and to its `end`
// event, each warm against the same configuration without a pool, interleaved; then each pool's claim latency. Before every timed Run
// every pool is full and quiet, so no member being made competes with it. Measured, not asserted: a
// MISS only prints. It exits non-zero only when a Run was not ok, was served warm or cold against
// its side, or something of this bench was left behind.

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import {
  createAgentContainerRuntime,
  createAgentRunner,
  OWNER_LABEL,
  startEgressGateway,
  type AgentContainerRuntime,
  type AgentRunner,
  type AgentRunnerOptions,
  type ReaderVerdict,
} from "../src/index.js";
import type { PoolStats } from "../src/subpaths/runtime.js";
import { AGENT_IMAGE, startStandInModel } from "../src/testing/index.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize, type Summary } from "./measure.js";
import { docker, leftoversLabelled } from "./engine-words.js";
import { startBenchService, type BenchService, type ServicePool } from "./warm-service.js";

/** Only this bench's containers and networks carry it; the service's carry its process's pid. */
const OWNER = "agentcage-bench-warm";
const PID_LABEL = "agentcage.pid";
const TEST_IMAGE = "agentcage-test:latest";
const DEFAULT_RUNS = 10;
const MAX_RUNS = 200;
/** Two, so a claimed member's replacement can wait while the other serves (the pool's REPLACE_AFTER_CLAIM_MS). */
const POOL_SIZE = 2;
const PROMPT = "What is the capital of France? Answer in one sentence.";
const ANSWER = "The capital of France is Paris.";
/** A made-up key: the stand-in accepts any. */
const KEY = "sk-bench-stand-in-key";
const QUIET_TIMEOUT_MS = 120_000;
/** The issue's targets: warm median at most this fraction of cold's, to the result (or a no-op's Outcome). */
const TARGETS = { model: 0.35, none: 0.45, noop: 0.2, service: 0.35 } as const;
/** And to the end (a Run's Outcome, the service's `end` event): a warm claude Run under `model` at most this fraction of cold's. */
const END_TARGET = 0.2;
const CLAIM_P99_TARGET_MS = 50;

type Side = "cold" | "warm";
/** One Run's ms: to its result record (none for a no-op Run), and to its end (the Outcome, or the service's `end` event). */
type Timing = { readonly toResult?: number; readonly toEnd: number };
type Pair = {
  readonly name: string;
  readonly target: number;
  /** The row's name in the table to the end, and its target there; absent: the row has no result before its end. */
  readonly end?: { readonly name: string; readonly target?: number };
  readonly timed: Record<Side, () => Promise<Timing>>;
  readonly samples: Record<Side, Timing[]>;
};
/** A pool's figures, from the library or GET /v1/pool. */
type PoolFigures = Pick<PoolStats, "size" | "ready" | "making" | "claimed"> & { readonly claimLatencyMs: ServicePool["claimLatencyMs"] };

/** Containers and networks of this bench's owner, and of its own process or its services' (the proxy, the stand-ins). */
function leftovers(pids: readonly number[]): string[] {
  return leftoversLabelled(`${OWNER_LABEL}=${OWNER}`, ...pids.map((pid) => `${PID_LABEL}=${pid}`));
}

async function drain(stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict> {
  for await (const chunk of stdout) void chunk;
  return { ok: true };
}

function servedAs(name: string, side: Side, warm: boolean | undefined): void {
  if ((warm === true) !== (side === "warm")) throw new BenchFailure(`a ${side} Run of "${name}" was served ${warm === true ? "warm" : "cold"}`);
}

/** A trivial claude Run: ms from run() to its result record, and to its Outcome. */
function claudeRun(name: string, side: Side, runner: AgentRunner): () => Promise<Timing> {
  return async () => {
    let resultAt: number | undefined;
    const started = performance.now();
    const outcome = await runner.run({ cli: "claude", maxTurns: 5, timeoutSeconds: 120 }, PROMPT, {
      onEvent: (event) => {
        if (event.type === "result") resultAt ??= performance.now();
      },
    });
    const endedAt = performance.now();
    if (!outcome.ok || outcome.result?.text !== ANSWER || resultAt === undefined)
      throw new BenchFailure(`a ${side} Run of "${name}" ended ${outcome.reason}: ${outcome.error ?? outcome.result?.error ?? "no message"}`);
    servedAs(name, side, outcome.warm);
    return { toResult: resultAt - started, toEnd: endedAt - started };
  };
}

/** A no-op Run: ms from run() to its Outcome. */
function noopRun(name: string, side: Side, runtime: AgentContainerRuntime<ReaderVerdict>): () => Promise<Timing> {
  return async () => {
    const started = performance.now();
    const outcome = await runtime.run({ text: "" });
    const ms = performance.now() - started;
    if (!outcome.ok || outcome.exit?.code !== 0)
      throw new BenchFailure(`a ${side} Run of "${name}" ended ${outcome.reason}, exit ${JSON.stringify(outcome.exit ?? null)}: ${outcome.error ?? ""}`);
    servedAs(name, side, outcome.warm);
    return { toEnd: ms };
  };
}

function serviceRun(name: string, side: Side, service: BenchService): () => Promise<Timing> {
  return async () => {
    const { toResultMs, toEndMs, warm } = await service.timedRun(PROMPT, ANSWER);
    servedAs(name, side, warm);
    return { toResult: toResultMs, toEnd: toEndMs };
  };
}

/** Waits until every pool holds its size ready and makes none. */
async function quiet(pools: ReadonlyArray<readonly [string, () => Promise<PoolFigures | undefined>]>): Promise<void> {
  const end = Date.now() + QUIET_TIMEOUT_MS;
  for (;;) {
    const figures = await Promise.all(pools.map(async ([name, read]) => [name, await read()] as const));
    const busy = figures.filter(([, f]) => f === undefined || f.ready < f.size || f.making > 0);
    if (busy.length === 0) return;
    if (Date.now() > end) throw new BenchFailure(`pools not full and quiet within ${QUIET_TIMEOUT_MS} ms: ${JSON.stringify(busy)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function cells(s: Summary): string {
  return [s.median, s.p90, s.min].map((v) => v.toFixed(0)).join(" / ");
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const silent = pino({ level: "silent" });
  const dir = await mkdtemp(join(os.tmpdir(), "agentcage-bench-warm-"));
  const staged = async (name: string) => {
    const runtimeDir = join(dir, name);
    await mkdir(runtimeDir, { recursive: true });
    return { runtimeDir };
  };
  const closers: Array<() => Promise<void>> = [];
  const servicePids: number[] = [];
  let failure: string | undefined;
  const pairs: Pair[] = [];
  const pools: Array<readonly [string, () => Promise<PoolFigures | undefined>]> = [];
  try {
    const standIn = await startStandInModel("plain", { logger: silent });
    closers.push(() => standIn.stop());
    const gateway = await startEgressGateway({ runtimeDir: dir, standIn: true, logger: silent });
    closers.push(async () => await gateway.close());

    const runner = async (name: string, options: Partial<AgentRunnerOptions>, pool: boolean): Promise<AgentRunner> => {
      const made = createAgentRunner({
        image: AGENT_IMAGE,
        owner: OWNER,
        logger: silent,
        staging: await staged(name),
        environment: { ANTHROPIC_API_KEY: KEY },
        ...options,
        ...(pool ? { pool: { size: POOL_SIZE } } : {}),
      });
      closers.push(() => made.close());
      if (pool) pools.push([name, async () => made.pool()]);
      return made;
    };
    const model = { networkPolicy: "model", egress: gateway } as const;
    const none = { networks: [standIn.network], anthropicBaseUrl: standIn.baseUrl };
    const noop = async (name: string, pool: boolean): Promise<AgentContainerRuntime<ReaderVerdict>> => {
      const made = createAgentContainerRuntime<ReaderVerdict>({
        container: { image: TEST_IMAGE, owner: OWNER, logger: silent, staging: await staged(name) },
        run: () => ({ args: ["true"], stdin: "", outcome: drain }),
        ...(pool ? { pool: { size: POOL_SIZE } } : {}),
      });
      closers.push(() => made.close());
      if (pool) pools.push([name, async () => made.pool()]);
      return made;
    };
    const service = async (name: string, pool: number): Promise<BenchService> => {
      const started = await startBenchService(name, join(dir, name), pool);
      servicePids.push(started.pid);
      closers.push(() => started.stop());
      if (pool > 0) pools.push([name, () => started.pool()]);
      return started;
    };

    const pair = (name: string, target: number, timed: Record<Side, () => Promise<Timing>>, end?: Pair["end"]): void => {
      pairs.push({ name, target, timed, samples: { cold: [], warm: [] }, ...(end === undefined ? {} : { end }) });
    };
    const modelName = 'claude, "model", to result';
    const modelEnd = { name: 'claude, "model", to Outcome', target: END_TARGET };
    pair(
      modelName,
      TARGETS.model,
      {
        cold: claudeRun(modelName, "cold", await runner("model-cold", model, false)),
        warm: claudeRun(modelName, "warm", await runner("model-warm", model, true)),
      },
      modelEnd,
    );
    const noneName = 'claude, "none", to result';
    pair(
      noneName,
      TARGETS.none,
      {
        cold: claudeRun(noneName, "cold", await runner("none-cold", none, false)),
        warm: claudeRun(noneName, "warm", await runner("none-warm", none, true)),
      },
      { name: 'claude, "none", to Outcome' },
    );
    const noopName = "no-op Run (true), whole Run";
    const noopCold = await noop("noop-cold", false);
    // What an earlier, interrupted bench left (its process gone); the services sweep their own at start.
    const swept = await noopCold.sweep();
    if (swept.removed.length > 0) console.log(`swept ${swept.removed.length} container(s) left by an earlier, interrupted bench`);
    pair(noopName, TARGETS.noop, { cold: noopRun(noopName, "cold", noopCold), warm: noopRun(noopName, "warm", await noop("noop-warm", true)) });
    const serviceName = 'service, claude "model", to result';
    pair(
      serviceName,
      TARGETS.service,
      {
        cold: serviceRun(serviceName, "cold", await service("service-cold", 0)),
        warm: serviceRun(serviceName, "warm", await service("service-warm", POOL_SIZE)),
      },
      { name: 'service, claude "model", to end', target: END_TARGET },
    );

    const [client, server] = docker("version", "--format", "{{.Client.Version}} {{.Server.Version}}").split(" ");
    console.log(
      `warm pool (size ${POOL_SIZE}) vs cold: ${runs} interleaved Runs of each side of each row, after one warm-up each, every pool full and quiet before each Run`,
    );
    console.log(`node ${process.version}, docker client ${client} / engine ${server}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`);
    console.log(
      `load average at the start: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );

    for (const { timed } of pairs) {
      for (const side of ["cold", "warm"] as const) {
        await quiet(pools);
        await timed[side]();
      }
    }
    for (let i = 0; i < runs; i++) {
      // Which side goes first alternates, so neither always follows the other's cleanup.
      const order: readonly Side[] = i % 2 === 0 ? ["cold", "warm"] : ["warm", "cold"];
      for (const { timed, samples } of pairs) {
        for (const side of order) {
          await quiet(pools);
          samples[side].push(await timed[side]());
        }
      }
    }
    console.log(
      `load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    report(pairs, await Promise.all(pools.map(async ([name, read]) => [name, await read()] as const)));
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    for (const close of closers.reverse()) await close().catch((error: unknown) => (failure ??= `closing: ${String(error)}`));
    await rm(dir, { recursive: true, force: true });
  }
  return reportEnd(`${OWNER_LABEL}=${OWNER} or ${PID_LABEL}=(this bench or its services)`, leftovers([process.pid, ...servicePids]), failure);
}

function report(pairs: readonly Pair[], pools: ReadonlyArray<readonly [string, PoolFigures | undefined]>): void {
  console.log("");
  console.log(`${"ms, median / p90 / min".padEnd(36)}${"cold".padStart(20)}${"warm".padStart(20)}${"ratio".padStart(8)}  target`);
  for (const { name, target, samples } of pairs) {
    const cold = summarize(samples.cold.map((t) => t.toResult ?? t.toEnd));
    const warm = summarize(samples.warm.map((t) => t.toResult ?? t.toEnd));
    const ratio = warm.median / cold.median;
    console.log(
      `${name.padEnd(36)}${cells(cold).padStart(20)}${cells(warm).padStart(20)}${ratio.toFixed(2).padStart(8)}  ≤ ${target}: ${ratio <= target ? "MET" : "MISS"}`,
    );
  }
  console.log("");
  // The same Runs to their end, and each Run's tail (its end less its result), as medians.
  console.log(
    `${"ms, median / p90 / min".padEnd(36)}${"cold".padStart(20)}${"warm".padStart(20)}${"ratio".padStart(8)}${"tail cold / warm".padStart(18)}  target`,
  );
  for (const { end, samples } of pairs) {
    if (end === undefined) continue;
    const cold = summarize(samples.cold.map((t) => t.toEnd));
    const warm = summarize(samples.warm.map((t) => t.toEnd));
    const ratio = warm.median / cold.median;
    const tail = (side: Side) => summarize(samples[side].map((t) => t.toEnd - (t.toResult ?? t.toEnd))).median.toFixed(0);
    const verdict = end.target === undefined ? "-" : `≤ ${end.target}: ${ratio <= end.target ? "ok" : "MISS"}`;
    console.log(
      `${end.name.padEnd(36)}${cells(cold).padStart(20)}${cells(warm).padStart(20)}${ratio.toFixed(2).padStart(8)}${`${tail("cold")} / ${tail("warm")}`.padStart(18)}  ${verdict}`,
    );
  }
  console.log("");
  console.log(`claim latency, ms from the Run's slot to its claim written (warm-ups included), target p99 < ${CLAIM_P99_TARGET_MS}:`);
  for (const [name, figures] of pools) {
    const latency = figures?.claimLatencyMs;
    const p99 = latency?.p99;
    const verdict = p99 === undefined ? "no claim" : p99 < CLAIM_P99_TARGET_MS ? "MET" : "MISS";
    console.log(`  ${name.padEnd(14)} ${latency?.count ?? 0} claims, p50 ${latency?.p50 ?? "-"}, p99 ${p99 ?? "-"}: ${verdict}`);
  }
}

runBench(main);
