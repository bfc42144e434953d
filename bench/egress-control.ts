// Measures what a Run's registration and revocation cost when the proxy is reached through the
// engine (control "engine": an exec of the bridge per request) against the control socket in the
// Staging Directory (control "disk"): one register and one revoke, timed together, on two proxies
// started on the local engine, in turns so drift hits both. Warm: the bridge's connection kept open
// between requests (as during a Run, whose meter is read each second); cold: after it closed idle,
// so the round trip starts a bridge (a few, each after a pause). Prints median, p90 and min of each
// and the ratio of the medians. Measured, not asserted: the engine path is for engines that cannot see
// this disk, where the disk path cannot work at all.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { execFileSync } from "node:child_process";
import { pino } from "pino";
import { startEgressGateway, type EgressGateway } from "../src/gateway/index.js";
import { CALLER_CONNECTION_IDLE_MS } from "../src/egress/index.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize, type Summary } from "./measure.js";

const WARM_UP = 5;
/** Cold round trips of each: each waits for the idle connection to close first. */
const COLD_RUNS = 5;
const KEY = "sk-bench-0123456789abcdef0123456789";

async function roundTrip(gateway: EgressGateway, runId: string): Promise<number> {
  const started = performance.now();
  await gateway.register({ runId, provider: "anthropic", credential: { kind: "api_key", value: KEY } });
  const meter = await gateway.revoke(runId);
  if (meter?.runId !== runId) throw new BenchFailure(`revoking ${runId} answered ${JSON.stringify(meter)}`);
  return performance.now() - started;
}

function row(label: string, s: Summary): string {
  return `${label.padEnd(28)} ${s.median.toFixed(1).padStart(8)} ${s.p90.toFixed(1).padStart(8)} ${s.min.toFixed(1).padStart(8)}`;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, 40, 10_000);
  const runtimeDir = await mkdtemp(join(tmpdir(), "agentcage-bench-control-"));
  const logger = pino({ level: "warn" });
  const gateways: EgressGateway[] = [];
  let failure: string | undefined;
  try {
    const disk = await startEgressGateway({ runtimeDir, logger });
    gateways.push(disk);
    const engine = await startEgressGateway({ control: "engine", logger });
    gateways.push(engine);
    for (let i = 0; i < WARM_UP; i++) {
      await roundTrip(disk, `warm-disk-${i}`);
      await roundTrip(engine, `warm-engine-${i}`);
    }
    const overDisk: number[] = [];
    const overEngine: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Alternate which goes first, so neither always follows the other.
      if (i % 2 === 0) {
        overDisk.push(await roundTrip(disk, `disk-${i}`));
        overEngine.push(await roundTrip(engine, `engine-${i}`));
      } else {
        overEngine.push(await roundTrip(engine, `engine-${i}`));
        overDisk.push(await roundTrip(disk, `disk-${i}`));
      }
    }
    const a = summarize(overDisk);
    const b = summarize(overEngine);
    console.log(`egress control: ${runs} register+revoke round trips each way, on the local engine, Node ${process.version}`);
    console.log(`${"".padEnd(28)} ${"median".padStart(8)} ${"p90".padStart(8)} ${"min".padStart(8)}   (ms)`);
    console.log(row('control "disk" (socket)', a));
    console.log(row('control "engine" (exec)', b));
    console.log(
      `warm, through the engine: ${(b.median / a.median).toFixed(1)}x the socket's median, ${(b.median - a.median).toFixed(1)} ms added per round trip`,
    );
    const coldDisk: number[] = [];
    const coldEngine: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      await new Promise((resolve) => setTimeout(resolve, CALLER_CONNECTION_IDLE_MS + 500));
      coldEngine.push(await roundTrip(engine, `cold-engine-${i}`));
      coldDisk.push(await roundTrip(disk, `cold-disk-${i}`));
    }
    const c = summarize(coldDisk);
    const d = summarize(coldEngine);
    console.log(row('cold, control "disk"', c));
    console.log(row('cold, control "engine"', d));
    console.log(
      `cold, through the engine: ${(d.median / c.median).toFixed(1)}x the socket's median, ${(d.median - c.median).toFixed(1)} ms added per round trip`,
    );
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    for (const gateway of gateways) await gateway.close();
    await rm(runtimeDir, { recursive: true, force: true });
  }
  const leaked = execFileSync(
    "docker",
    ["ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", `label=agentcage.pid=${process.pid}`],
    {
      encoding: "utf8",
    },
  )
    .split("\n")
    .filter((id) => id !== "");
  return reportEnd(`agentcage.pid=${process.pid}`, leaked, failure);
}

runBench(main);
