// Measures the wall time of one trivial Run of the real claude CLI and one of the real codex CLI
// (images/agent) through createAgentRunner, each against the stand-in model server ("plain": one
// short answer, no tools), every security default on. Why: a Run should end when the agent has
// answered; the target says a trivial codex Run costs at most twice a trivial claude Run.
// Measured, not asserted: a MISS only prints. It exits non-zero only when a Run was not ok or a
// container of its owner is left behind.

import { BenchFailure, parseRuns, summarize, type Summary, reportEnd, runBench } from "./measure.js";
import { docker } from "./engine-words.js";
import os from "node:os";
import { pino } from "pino";
import { createAgentRunner, OWNER_LABEL, type AgentCli, type AgentOutcome } from "../src/index.js";
import { AGENT_IMAGE, startStandInModel } from "../src/testing/index.js";

/** Built by `npm run image` (or provisioning); AGENTCAGE_AGENT_IMAGE names another build of it. */
const IMAGE = process.env["AGENTCAGE_AGENT_IMAGE"] ?? AGENT_IMAGE;
/** Only this bench's agent containers carry it, so the leak count sees nothing else. */
const OWNER = "agentcage-bench-agents";
const DEFAULT_RUNS = 10;
const MAX_RUNS = 1000;
/** A codex Run's median at most this many times a claude Run's. */
const TARGET_RATIO = 2;
/** The stand-in answers this scenario with one sentence and no tool call. */
const SCENARIO = "plain";
const PROMPT = "What is the capital of France? Answer in one sentence.";
const ANSWER = "The capital of France is Paris.";
/** A made-up key: the stand-in accepts any, and it is masked like a real one. */
const KEY = "sk-bench-stand-in-key";
const REQUEST_TIMEOUT_SECONDS = 120;

type Sample = {
  readonly ms: number;
  /** The agent exited on its own (exit code, no signal), rather than being stopped after answering. */
  readonly exitedOnItsOwn: boolean;
};

function containersOfOwner(): string[] {
  return docker("ps", "--all", "--quiet", "--filter", `label=${OWNER_LABEL}=${OWNER}`)
    .split("\n")
    .filter((l) => l.length > 0);
}

function checked(cli: AgentCli, outcome: AgentOutcome): void {
  if (!outcome.ok || outcome.result?.text !== ANSWER) {
    throw new BenchFailure(
      `a ${cli} Run ended ${outcome.reason}${outcome.result === undefined ? "" : ` (${outcome.result.reason})`}: ${outcome.error ?? outcome.result?.error ?? outcome.result?.text ?? "no message"}; stderr: ${outcome.stderr.slice(0, 500)}`,
    );
  }
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const standIn = await startStandInModel(SCENARIO, { logger: pino({ level: "silent" }) });
  const samples: Record<AgentCli, Sample[]> = { claude: [], codex: [] };
  let failure: string | undefined;
  try {
    const runner = createAgentRunner({
      image: IMAGE,
      networks: [standIn.network],
      environment: { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY },
      anthropicBaseUrl: standIn.baseUrl,
      codexProvider: { baseUrl: `${standIn.baseUrl}/v1` },
      owner: OWNER,
      logger: pino({ level: "silent" }),
    });
    const once = async (cli: AgentCli): Promise<Sample> => {
      const started = performance.now();
      const outcome = await runner.run({ cli, maxTurns: 5, timeoutSeconds: REQUEST_TIMEOUT_SECONDS }, PROMPT);
      const ms = performance.now() - started;
      checked(cli, outcome);
      return { ms, exitedOnItsOwn: outcome.exit?.signal === undefined && outcome.exit?.code === 0 };
    };

    const [client, server] = docker("version", "--format", "{{.Client.Version}} {{.Server.Version}}").split(" ");
    console.log(
      `claude vs codex: ${runs} interleaved trivial Runs each through createAgentRunner on ${IMAGE}, against the stand-in model ("${SCENARIO}"), after one warm-up each`,
    );
    console.log(`node ${process.version}, docker client ${client} / engine ${server}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`);
    try {
      await once("claude");
      await once("codex");
      for (let i = 0; i < runs; i++) {
        samples.claude.push(await once("claude"));
        samples.codex.push(await once("codex"));
      }
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  } finally {
    await standIn.stop();
  }

  const leaked = containersOfOwner();
  if (failure === undefined) {
    const claude = summarize(samples.claude.map((s) => s.ms));
    const codex = summarize(samples.codex.map((s) => s.ms));
    const ratio = codex.median / claude.median;
    const own = (cli: AgentCli): string => `${samples[cli].filter((s) => s.exitedOnItsOwn).length}/${samples[cli].length}`;
    const row = (name: string, s: Summary, cli: AgentCli): string =>
      `${name.padEnd(10)}${[s.median, s.p90, s.min].map((v) => v.toFixed(1).padStart(10)).join("")}${own(cli).padStart(16)}`;
    console.log("");
    console.log(`${"ms".padEnd(10)}${["median", "p90", "min"].map((h) => h.padStart(10)).join("")}${"exited itself".padStart(16)}`);
    console.log(row("claude", claude, "claude"));
    console.log(row("codex", codex, "codex"));
    console.log("");
    console.log(`median(codex) / median(claude) = ${ratio.toFixed(2)}`);
    console.log(`target: a trivial codex Run at most ${TARGET_RATIO}x a trivial claude Run: ${ratio <= TARGET_RATIO ? "MET" : "MISS"}`);
  }
  return reportEnd(`${OWNER_LABEL}=${OWNER}`, leaked, failure);
}

runBench(main);
