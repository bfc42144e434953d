// A load test of the `model` network policy: N Runs of the stub agent (the offline test image's
// claude) started at once through createAgentRunner, each on a network of its own joined by the one
// egress proxy, optionally with a warm pool (BENCH_POOL). Reports how many completed, how many were
// refused and why, the time until all were done, where the engine's network calls spent it, peak
// memory of this process and of the engine, and what was left. It exits non-zero when a Run did not
// complete or anything of its owner is left behind.

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createAgentRunner, limits, OWNER_LABEL, startEgressGateway, type AgentOutcome } from "../src/index.js";
import { createDockerEngine, type Engine } from "../src/subpaths/runtime.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize } from "./measure.js";
import { docker, leftoversLabelled } from "./engine-words.js";
import { memoryPeaks } from "./memory-peaks.js";

const OWNER = "agentcage-bench-load";
const TEST_IMAGE = "agentcage-test:latest";
const DEFAULT_RUNS = 200;
const MAX_RUNS = 1024;
const KEY = "sk-bench-load-stand-in-key";
const MiB = 1024 * 1024;

function leftovers(): string[] {
  return leftoversLabelled(`${OWNER_LABEL}=${OWNER}`);
}

type Call = { readonly op: "create" | "connect" | "remove"; readonly ms: number; readonly joined: number; readonly failed: boolean };

/** The Docker engine with each network call timed, and the proxy's count of networks (joined) at each call's start. */
function timedEngine(): { readonly engine: Engine; readonly calls: Call[]; readonly mostAtOnce: () => number } {
  const inner = createDockerEngine();
  const calls: Call[] = [];
  let joined = 0;
  let underWay = 0;
  let most = 0;
  const timed =
    <A extends unknown[], T>(op: Call["op"], call: (...args: A) => Promise<T>, after: (ok: boolean) => void = () => undefined) =>
    async (...args: A): Promise<T> => {
      const at = joined;
      const started = performance.now();
      most = Math.max(most, ++underWay);
      try {
        const value = await call(...args);
        calls.push({ op, ms: performance.now() - started, joined: at, failed: false });
        after(true);
        return value;
      } catch (error) {
        calls.push({ op, ms: performance.now() - started, joined: at, failed: true });
        after(false);
        throw error;
      } finally {
        underWay--;
      }
    };
  const engine: Engine = {
    ...inner,
    createNetwork: timed("create", inner.createNetwork),
    connectNetwork: timed("connect", inner.connectNetwork, (ok) => void (ok && joined++)),
    removeNetwork: timed("remove", inner.removeNetwork, (ok) => void (ok && (joined = Math.max(0, joined - 1)))),
  };
  return { engine, calls, mostAtOnce: () => most };
}

/** Median and p90 of each network call's time, overall and by how many networks the proxy was on when it started. */
function callReport(calls: readonly Call[]): string[] {
  const out: string[] = [];
  const ms = (xs: readonly Call[]) => {
    const s = summarize(xs.map((c) => c.ms));
    return `median ${s.median.toFixed(0).padStart(6)} ms  p90 ${s.p90.toFixed(0).padStart(6)} ms  (${xs.length}${xs.some((c) => c.failed) ? `, ${xs.filter((c) => c.failed).length} failed` : ""})`;
  };
  for (const op of ["create", "connect", "remove"] as const) {
    const of = calls.filter((c) => c.op === op);
    if (of.length === 0) continue;
    out.push(`  ${op.padEnd(8)} ${ms(of)}`);
    const most = Math.max(...of.map((c) => c.joined));
    const step = most > 100 ? 50 : 25;
    for (let from = 0; from <= most; from += step) {
      const bucket = of.filter((c) => c.joined >= from && c.joined < from + step);
      if (bucket.length > 0) out.push(`    proxy on ${String(from).padStart(3)}-${String(from + step - 1).padEnd(3)} networks: ${ms(bucket)}`);
    }
  }
  return out;
}

function poolSize(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env["BENCH_POOL"];
  if (raw === undefined || raw === "" || raw === "0") return undefined;
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 1 || size > 256)
    throw new BenchFailure(`BENCH_POOL ${JSON.stringify(raw)} is not a whole number from 0 to 256; write one, such as 50`);
  return size;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const pool = poolSize(process.env);
  const silent = pino({ level: "silent" });
  const dir = await mkdtemp(join(os.tmpdir(), "agentcage-bench-load-"));
  const gateway = await startEgressGateway({ runtimeDir: dir, standIn: true, logger: silent });
  const { engine, calls, mostAtOnce } = timedEngine();
  const memory = memoryPeaks();
  let failure: string | undefined;
  try {
    const runner = createAgentRunner({
      image: TEST_IMAGE,
      owner: OWNER,
      logger: silent,
      networkPolicy: "model",
      egress: gateway,
      environment: { ANTHROPIC_API_KEY: KEY },
      maxConcurrentRuns: runs,
      engine,
      ...(pool === undefined ? {} : { pool: { size: pool } }),
    });
    console.log(
      `${runs} concurrent "model" Runs of the stub agent (${TEST_IMAGE}), ${pool === undefined ? "no pool" : `a pool of ${pool}`}, network calls at once: ${limits.NETWORK_CALLS_AT_ONCE}`,
    );
    console.log(
      `node ${process.version}, docker engine ${docker("version", "--format", "{{.Server.Version}}")}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`,
    );
    if (pool !== undefined) {
      // The pool fills before the load comes, as it would on a service between bursts.
      const filled = Date.now() + 300_000;
      while ((runner.pool()?.ready ?? 0) < pool && Date.now() < filled) await new Promise((resolve) => setTimeout(resolve, 200));
      console.log(`pool ready: ${runner.pool()?.ready ?? 0} of ${pool}`);
    }
    await memory.start();
    const started = performance.now();
    const doneAt: number[] = [];
    const outcomes = await Promise.all(
      Array.from({ length: runs }, () =>
        runner.run({ cli: "claude", timeoutSeconds: 600 }, "hello").then((outcome: AgentOutcome) => {
          doneAt.push(performance.now() - started);
          return outcome;
        }),
      ),
    );
    const allDoneMs = performance.now() - started;
    const completed = outcomes.filter((o) => o.ok).length;
    const refused: Record<string, number> = {};
    for (const o of outcomes.filter((o) => !o.ok)) {
      const why = `${o.reason}: ${(o.error ?? "").replace(/[0-9a-f]{16}/g, "<id>").slice(0, 160)}`;
      refused[why] = (refused[why] ?? 0) + 1;
    }
    const warm = outcomes.filter((o) => o.warm === true).length;
    await runner.close();
    const { peak, start } = await memory.stop();
    const done = summarize(doneAt);
    console.log(`completed ${completed} of ${runs}${pool === undefined ? "" : ` (${warm} warm)`}; refused ${runs - completed}`);
    for (const [why, count] of Object.entries(refused)) console.log(`  ${count} x ${why}`);
    console.log(
      `time to all done ${(allDoneMs / 1000).toFixed(1)} s; each Run done after: median ${(done.median / 1000).toFixed(1)} s, p90 ${(done.p90 / 1000).toFixed(1)} s`,
    );
    console.log(`network calls (most at once: ${mostAtOnce()}):`);
    for (const line of callReport(calls)) console.log(line);
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
    console.log(
      `peak RSS: this process ${mib(peak.self)}; dockerd ${mib(peak.dockerd)} (${mib(start.dockerd)} at the start), containerd ${mib(peak.containerd)} (${mib(start.containerd)}), the containers' shims ${mib(peak.shims)} (${mib(start.shims)})`,
    );
    if (completed < runs) failure = `${runs - completed} of ${runs} Runs did not complete`;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  }
  const left = leftovers();
  console.log(`left behind (containers and networks of ${OWNER}): ${left.length}`);
  return reportEnd("load-model", left, failure);
}

runBench(main);
