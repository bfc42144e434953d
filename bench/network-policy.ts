// Measures what the `model` network policy costs a Run: one trivial claude Run through
// createAgentRunner, once with the agent joined to the stand-in model's own namespace (no network
// of the Run's, the real key in the container: the floor) and once under `model` (a network made
// for the Run, the egress proxy joined to it, a per-Run token registered and revoked, the stand-in
// behind the proxy), interleaved so drift hits both. Prints median, p90 and min of each, the median
// added and the ratio. Measured, not asserted. It exits non-zero only when a Run was not ok or a
// container or network of its owner is left behind.

import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createAgentRunner, OWNER_LABEL, startEgressGateway, type AgentOutcome, type AgentRunner } from "../src/index.js";
import { AGENT_IMAGE, startStandInModel } from "../src/testing/index.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize, type Summary } from "./measure.js";
import { docker, leftoversLabelled } from "./engine-words.js";

const OWNER = "agentcage-bench-network";
const DEFAULT_RUNS = 10;
const MAX_RUNS = 500;
const PROMPT = "What is the capital of France? Answer in one sentence.";
const ANSWER = "The capital of France is Paris.";
const KEY = "sk-bench-stand-in-key";

function leftovers(): string[] {
  return leftoversLabelled(`${OWNER_LABEL}=${OWNER}`);
}

async function timed(runner: AgentRunner, label: string): Promise<number> {
  const started = performance.now();
  const outcome: AgentOutcome = await runner.run({ cli: "claude", maxTurns: 5, timeoutSeconds: 120 }, PROMPT);
  const ms = performance.now() - started;
  if (!outcome.ok || outcome.result?.text !== ANSWER)
    throw new BenchFailure(`a Run under ${label} ended ${outcome.reason}: ${outcome.error ?? outcome.result?.error ?? "no message"}`);
  return ms;
}

function line(label: string, s: Summary): string {
  return `${label.padEnd(34)} median ${s.median.toFixed(0).padStart(5)} ms   p90 ${s.p90.toFixed(0).padStart(5)} ms   min ${s.min.toFixed(0).padStart(5)} ms`;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const silent = pino({ level: "silent" });
  const dir = await mkdtemp(join(os.tmpdir(), "agentcage-bench-network-"));
  const standIn = await startStandInModel("plain", { logger: silent });
  const gateway = await startEgressGateway({ runtimeDir: dir, standIn: true, logger: silent });
  let failure: string | undefined;
  try {
    const floor = createAgentRunner({
      image: AGENT_IMAGE,
      owner: OWNER,
      logger: silent,
      networks: [standIn.network],
      anthropicBaseUrl: standIn.baseUrl,
      environment: { ANTHROPIC_API_KEY: KEY },
    });
    const model = createAgentRunner({
      image: AGENT_IMAGE,
      owner: OWNER,
      logger: silent,
      networkPolicy: "model",
      egress: gateway,
      environment: { ANTHROPIC_API_KEY: KEY },
    });
    const [client, server] = docker("version", "--format", "{{.Client.Version}} {{.Server.Version}}").split(" ");
    console.log(`network policy "model" vs the stand-in's own namespace: ${runs} interleaved trivial claude Runs each, after one warm-up each`);
    console.log(`node ${process.version}, docker client ${client} / engine ${server}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`);
    try {
      await timed(floor, "the floor");
      await timed(model, "model");
      const samples = { floor: [] as number[], model: [] as number[] };
      for (let i = 0; i < runs; i++) {
        samples.floor.push(await timed(floor, "the floor"));
        samples.model.push(await timed(model, "model"));
      }
      const f = summarize(samples.floor);
      const m = summarize(samples.model);
      console.log(line("no network of its own (floor)", f));
      console.log(line('"model": own network + proxy', m));
      console.log(`"model" adds ${(m.median - f.median).toFixed(0)} ms a Run at the median; ratio ${(m.median / f.median).toFixed(2)}x the floor`);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  } finally {
    await gateway.close();
    await standIn.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return reportEnd("network-policy", leftovers(), failure);
}

runBench(main);
