// Measures the wall time of one no-op Run through run() (Engine API, in this process) against the
// plain docker CLI spawned with exactly commandFor()'s words, on the offline test image with every
// default on. Why: run() is meant to be cheaper than a client process per Run; the target says how much.
// Measured, not asserted: a MISS only prints. It exits non-zero only when a Run was not ok or a
// container of its owner is left behind.

import { BenchFailure, parseRuns, summarize, type Summary, reportEnd, runBench } from "./measure.js";
import { spawn } from "node:child_process";
import { docker } from "./engine-words.js";
import os from "node:os";
import { pino } from "pino";
import { createAgentContainerRuntime, OWNER_LABEL, type ComposedCommand, type ReaderVerdict, type RunPrompt } from "../src/index.js";

/** Built by scripts/build-test-image.sh (`npm run provision`). */
const IMAGE = "agentcage-test:latest";
/** Only this bench's containers carry it, so the leak count and the start-up sweep see nothing else. */
const OWNER = "agentcage-bench";
const DEFAULT_RUNS = 20;
const MAX_RUNS = 10_000;
/** run()'s median at most this fraction of the CLI's median. */
const TARGET_RATIO = 0.6;
/** The no-op agent: echoes its tiny stdin and exits 0. */
const AGENT_ARGS = ["cat"] as const;
const PROMPT: RunPrompt = { text: "ping\n" };

type Sample = { readonly ms: number };

async function drainStdout(stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict> {
  for await (const chunk of stdout) void chunk;
  return { ok: true };
}

/** Spawns the client as a person pasting commandFor's words would; resolves when it has exited and its output ended. */
function runCli(command: ComposedCommand): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.command, command.args, { env: { ...process.env, ...command.env }, stdio: ["pipe", "pipe", "pipe"] });
    const stderr: Buffer[] = [];
    child.stdout.resume();
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stderr: Buffer.concat(stderr).toString("utf8").trim() }));
    // A client that exits before reading stdin gives EPIPE here; its exit code is the verdict.
    child.stdin.on("error", () => undefined);
    child.stdin.end(command.stdin);
  });
}

function containersOfOwner(): string[] {
  return docker("ps", "--all", "--quiet", "--filter", `label=${OWNER_LABEL}=${OWNER}`)
    .split("\n")
    .filter((l) => l.length > 0);
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const runtime = createAgentContainerRuntime({
    container: { image: IMAGE, owner: OWNER, logger: pino({ level: "silent" }) },
    run: () => ({ args: AGENT_ARGS, stdin: PROMPT.text, outcome: drainStdout }),
  });

  const viaRun = async (): Promise<Sample> => {
    const started = performance.now();
    const outcome = await runtime.run(PROMPT);
    const ms = performance.now() - started;
    if (!outcome.ok) throw new BenchFailure(`run() ended ${outcome.reason}: ${outcome.error ?? "no message"}`);
    // The reader says ok to anything; the exit code is what shows the agent really ran, as for the CLI.
    if (outcome.exit?.code !== 0) {
      throw new BenchFailure(`run() said ok but the agent exited ${JSON.stringify(outcome.exit ?? null)}: ${outcome.stderr.slice(0, 500)}`);
    }
    return { ms };
  };
  const viaCli = async (): Promise<Sample> => {
    const command = runtime.commandFor(PROMPT);
    const started = performance.now();
    const result = await runCli(command);
    const ms = performance.now() - started;
    if (result.code !== 0) {
      throw new BenchFailure(`${command.command} ${command.redactedArgs.join(" ")} exited ${result.code ?? result.signal}: ${result.stderr.slice(0, 500)}`);
    }
    return { ms };
  };

  const swept = await runtime.sweep();
  if (swept.removed.length > 0) console.log(`swept ${swept.removed.length} container(s) left by an earlier, interrupted bench`);

  const [client, server] = docker("version", "--format", "{{.Client.Version}} {{.Server.Version}}").split(" ");
  console.log(`run() vs docker CLI: ${runs} interleaved Runs each of \`${AGENT_ARGS.join(" ")}\` on ${IMAGE}, after one warm-up each`);
  console.log(`node ${process.version}, docker client ${client} / engine ${server}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`);

  const samplesRun: Sample[] = [];
  const samplesCli: Sample[] = [];
  let failure: string | undefined;
  try {
    await viaRun();
    await viaCli();
    for (let i = 0; i < runs; i++) {
      samplesRun.push(await viaRun());
      samplesCli.push(await viaCli());
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }

  const leaked = containersOfOwner();
  if (failure === undefined) {
    const r = summarize(samplesRun.map((s) => s.ms));
    const c = summarize(samplesCli.map((s) => s.ms));
    const ratio = r.median / c.median;
    const row = (name: string, s: Summary): string => `${name.padEnd(12)}${[s.median, s.p90, s.min].map((v) => v.toFixed(1).padStart(10)).join("")}`;
    console.log("");
    console.log(`${"ms".padEnd(12)}${["median", "p90", "min"].map((h) => h.padStart(10)).join("")}`);
    console.log(row("run()", r));
    console.log(row("docker CLI", c));
    console.log("");
    console.log(`median(run) / median(cli) = ${ratio.toFixed(2)}`);
    console.log(`target: run() at most ${TARGET_RATIO}x the CLI's median: ${ratio <= TARGET_RATIO ? "PASS" : "MISS"}`);
  }
  return reportEnd(`${OWNER_LABEL}=${OWNER}`, leaked, failure);
}

runBench(main);
