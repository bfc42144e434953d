// The service side of bench:warm: a real `agentcage serve --stand-in --network-policy model` (this
// checkout's, compiled beside the bench) as its own process, with or without `--pool`, and one
// timed claude Run through it over a real HTTP socket: from POST /v1/runs to the agent's result
// record on the Run's event stream, and to its `end` event (the Run's terminal event). Invariant: every service it starts is stopped by SIGTERM (which
// drains it and removes its pool) before the bench counts what is left.

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { BenchFailure } from "./measure.js";

/** The command, as `tsc -p bench/tsconfig.json` emits it beside this file. */
const MAIN = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const LISTEN_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;

export type BenchService = {
  readonly name: string;
  readonly pid: number;
  /** Its pool's figures from GET /v1/pool; undefined without a pool. */
  readonly pool: () => Promise<ServicePool | undefined>;
  /** One claude Run: ms from the POST to its result record and to its `end` event, and whether it was served warm. */
  readonly timedRun: (prompt: string, answer: string) => Promise<{ readonly toResultMs: number; readonly toEndMs: number; readonly warm: boolean }>;
  /** SIGTERM, then waits for it to exit. */
  readonly stop: () => Promise<void>;
};

export type ServicePool = {
  readonly size: number;
  readonly ready: number;
  readonly making: number;
  readonly claimed: number;
  readonly claimLatencyMs: { readonly count: number; readonly p50?: number; readonly p99?: number };
};

export async function startBenchService(name: string, runtimeDir: string, pool: number): Promise<BenchService> {
  const token = randomBytes(24).toString("hex");
  const args = [MAIN, "serve", "--port", "0", "--runtime-dir", runtimeDir, "--stand-in", "--network-policy", "model", "--slots", "2"];
  if (pool > 0) args.push("--pool", String(pool));
  // The token in the environment, never in an argv.
  const child = spawn(process.execPath, args, { env: { ...process.env, AGENTCAGE_TOKEN: token }, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const url = await listeningUrl(child, name);
  const headers = { authorization: `Bearer ${token}` };

  const poolFigures = async (): Promise<ServicePool | undefined> => {
    const answer = (await (await fetch(`${url}/v1/pool`, { headers })).json()) as ServicePool & { enabled?: boolean };
    return answer.enabled === false ? undefined : answer;
  };
  const timedRun = async (prompt: string, answer: string) => {
    const started = performance.now();
    const posted = await fetch(`${url}/v1/runs`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ cli: "claude", prompt }),
    });
    if (posted.status !== 202) throw new BenchFailure(`${name}: POST /v1/runs answered ${posted.status}: ${(await posted.text()).slice(0, 500)}`);
    const { id } = (await posted.json()) as { id: string };
    const { resultAt, endAt } = await untilEnd(url, headers, id, name);
    const record = (await (await fetch(`${url}/v1/runs/${id}`, { headers })).json()) as {
      state?: string;
      outcome?: { ok?: boolean; warm?: boolean; result?: { text?: string } };
    };
    if (record.state !== "completed" || record.outcome?.ok !== true || record.outcome.result?.text !== answer)
      throw new BenchFailure(`${name}: Run ${id} ended ${record.state}: ${JSON.stringify(record).slice(0, 500)}`);
    return { toResultMs: resultAt - started, toEndMs: endAt - started, warm: record.outcome.warm === true };
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  return { name, pid: child.pid as number, pool: poolFigures, timedRun, stop };
}

/** Waits for serve's "listening on URL" line; throws with what it printed when it exits or takes too long. */
function listeningUrl(child: ChildProcess, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let said = "";
    const timer = setTimeout(() => fail(`did not listen within ${LISTEN_TIMEOUT_MS} ms`), LISTEN_TIMEOUT_MS);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      reject(new BenchFailure(`${name}: agentcage serve ${why}: ${said.slice(-1000)}`));
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      said += chunk.toString("utf8");
      const url = /listening on (http:\/\/[^\s;]+)/.exec(said)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.once("close", (code, signal) => fail(`exited ${code ?? signal}`));
  });
}

/** Reads the Run's event stream to its end; resolves with performance.now() at its agent's result record and at its `end` event. */
async function untilEnd(
  url: string,
  headers: Record<string, string>,
  id: string,
  name: string,
): Promise<{ readonly resultAt: number; readonly endAt: number }> {
  const response = await fetch(`${url}/v1/runs/${id}/events`, { headers });
  if (response.body === null) throw new BenchFailure(`${name}: the event stream of Run ${id} has no body`);
  const decoder = new TextDecoder();
  let buffered = "";
  let resultAt: number | undefined;
  let endAt: number | undefined;
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf("\n\n");
    while (end >= 0) {
      const message = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf("\n\n");
      if (resultAt === undefined && message.includes("event: agent") && message.includes('"type":"result"')) resultAt = performance.now();
      if (endAt === undefined && message.includes("\nevent: end\n")) endAt = performance.now();
    }
  }
  if (resultAt === undefined) throw new BenchFailure(`${name}: Run ${id}'s event stream ended without a result record`);
  if (endAt === undefined) throw new BenchFailure(`${name}: Run ${id}'s event stream closed without its end event`);
  return { resultAt, endAt };
}
