// A load test of the service as an Operator runs it: `agentcage serve --stand-in --network-policy
// model` as a process of its own, N claude Runs submitted at once over HTTP with enough slots that
// most run together, while other work keeps the cores busy (BENCH_BUSY_CORES `yes` processes,
// bounded). Slow is not dead: every Run should complete. Prints completed / refused at submit /
// failed by end reason, the time until all were done, the service's and the engine's peak memory,
// and what was left; exits non-zero when a Run did not complete or anything is left behind.

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { join, resolve } from "node:path";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize } from "./measure.js";
import { docker, leftoversLabelled } from "./engine-words.js";
import { memoryPeaks } from "./memory-peaks.js";

const DEFAULT_RUNS = 100;
const MAX_RUNS = 1000;
/** serve's own cap on --slots. */
const MAX_SLOTS = 64;
const DEFAULT_BUSY_CORES = 4;
/** However the bench ends, a busy process ends by itself after this long. */
const BUSY_BOUND_SECONDS = 3600;
const POLL_EVERY_MS = 2000;
const PROMPT = "[stand-in:plain] What is the capital of France?";
const MiB = 1024 * 1024;
/** The label every container and network a process makes carries its pid in (src/runtime/ownership/ownership.ts). */
const PID_LABEL = "agentcage.pid";
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A whole number from the environment, or `fallback`. */
function wholeFrom(name: string, fallback: number, most: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > most) throw new BenchFailure(`${name} ${JSON.stringify(raw)} is not a whole number from 0 to ${most}`);
  return value;
}

/** `agentcage serve` from this checkout's build (or BENCH_AGENTCAGE, another build's dist/cli/main.js), once it listens. */
async function startServe(runtimeDir: string, slots: number, token: string): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const main = process.env["BENCH_AGENTCAGE"] ?? resolve("dist/cli/main.js");
  const child = spawn(
    process.execPath,
    [
      main,
      "serve",
      "--port",
      "0",
      "--runtime-dir",
      runtimeDir,
      "--stand-in",
      "--network-policy",
      "model",
      "--slots",
      String(slots),
      "--queue-bound",
      String(MAX_RUNS),
    ],
    { env: { ...process.env, AGENTCAGE_TOKEN: token }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let text = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new BenchFailure(`agentcage serve exited with ${code}: ${text.slice(-2000)}`))),
  );
  const listening = (async () => {
    for (;;) {
      const url = /listening on (http:\/\/[^\s;]+)/.exec(text)?.[1];
      if (url !== undefined) return url;
      await sleep(100);
    }
  })();
  return { url: await Promise.race([listening, exited]), child, stderr: () => text };
}

type Ended = { readonly state: string; readonly reason?: string; readonly error?: string };

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const slots = wholeFrom("BENCH_SLOTS", Math.min(MAX_SLOTS, runs), MAX_SLOTS) || 1;
  const busyCores = wholeFrom("BENCH_BUSY_CORES", DEFAULT_BUSY_CORES, 64);
  const runtimeDir = await mkdtemp(join(os.tmpdir(), "agentcage-bench-load-service-"));
  const token = randomBytes(24).toString("base64url");
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  console.log(
    `${runs} claude Runs at once through agentcage serve --stand-in --network-policy model --slots ${slots}, ${busyCores} busy processes (yes) beside it`,
  );
  console.log(
    `node ${process.version}, docker engine ${docker("version", "--format", "{{.Server.Version}}")}, ${os.cpus().length} CPUs, ${os.type()} ${os.release()}`,
  );
  const busy: ChildProcess[] = [];
  let failure: string | undefined;
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  let servePid = "";
  try {
    serve = await startServe(runtimeDir, slots, token);
    servePid = String(serve.child.pid);
    const memory = memoryPeaks(serve.child.pid);
    for (let i = 0; i < busyCores; i++) busy.push(spawn("timeout", [String(BUSY_BOUND_SECONDS), "yes"], { stdio: "ignore" }));
    await memory.start();
    const started = performance.now();
    const url = serve.url;
    const submitted = await Promise.all(
      Array.from({ length: runs }, async () => {
        const answer = await fetch(`${url}/v1/runs`, {
          method: "POST",
          headers,
          body: JSON.stringify({ cli: "claude", prompt: PROMPT, timeoutSeconds: 3600 }),
        });
        const body = (await answer.json()) as { id?: string; error?: string; message?: string };
        return answer.status === 202 || answer.status === 201
          ? { id: body.id as string }
          : { refused: `HTTP ${answer.status} ${body.error ?? ""}: ${body.message ?? ""}` };
      }),
    );
    const ids = submitted.flatMap((one) => ("id" in one ? [one.id] : []));
    const ended = new Map<string, Ended & { at: number }>();
    const loads: number[] = [];
    while (ended.size < ids.length) {
      loads.push(os.loadavg()[0] ?? 0);
      for (const id of ids.filter((one) => !ended.has(one))) {
        const answer = await fetch(`${url}/v1/runs/${id}`, { headers });
        if (answer.status !== 200) continue;
        const run = (await answer.json()) as { state: string; outcome?: { reason?: string; error?: string } };
        if (["completed", "failed", "cancelled"].includes(run.state)) {
          ended.set(id, {
            state: run.state,
            ...(run.outcome?.reason === undefined ? {} : { reason: run.outcome.reason }),
            ...(run.outcome?.error === undefined ? {} : { error: run.outcome.error }),
            at: performance.now() - started,
          });
        }
      }
      await sleep(POLL_EVERY_MS);
    }
    const allDoneMs = performance.now() - started;
    for (const one of busy) one.kill();
    const { peak, start } = await memory.stop();
    const outcomes = [...ended.values()];
    const completed = outcomes.filter((one) => one.reason === "completed").length;
    const refused: Record<string, number> = {};
    for (const one of submitted) if ("refused" in one) refused[one.refused] = (refused[one.refused] ?? 0) + 1;
    const failed: Record<string, number> = {};
    for (const one of outcomes.filter((o) => o.reason !== "completed")) {
      const why = `${one.reason ?? one.state}: ${(one.error ?? "").replace(/[0-9a-f]{16}/g, "<id>").slice(0, 200)}`;
      failed[why] = (failed[why] ?? 0) + 1;
    }
    const done = summarize(outcomes.map((one) => one.at));
    console.log(`completed ${completed} of ${runs}; refused at submit ${runs - ids.length}; failed ${ids.length - completed}`);
    for (const [why, count] of Object.entries(refused)) console.log(`  refused ${count} x ${why}`);
    for (const [why, count] of Object.entries(failed)) console.log(`  failed ${count} x ${why}`);
    console.log(
      `time to all done ${(allDoneMs / 1000).toFixed(1)} s (${(completed / (allDoneMs / 1000)).toFixed(2)} Runs/s); each Run done after: median ${(done.median / 1000).toFixed(1)} s, p90 ${(done.p90 / 1000).toFixed(1)} s; load average while it ran: median ${summarize(loads).median.toFixed(0)}, most ${Math.max(...loads).toFixed(0)}`,
    );
    const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
    console.log(
      `peak RSS: the service ${mib(peak.self)}; dockerd ${mib(peak.dockerd)} (${mib(start.dockerd)} at the start), containerd ${mib(peak.containerd)} (${mib(start.containerd)}), the containers' shims ${mib(peak.shims)} (${mib(start.shims)})`,
    );
    if (completed < runs) failure = `${runs - completed} of ${runs} Runs did not complete`;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    for (const one of busy) one.kill();
    if (serve !== undefined) {
      const exited = new Promise((done) => serve?.child.once("exit", done));
      serve.child.kill("SIGTERM");
      await exited;
    }
    await rm(runtimeDir, { recursive: true, force: true });
  }
  // What the service made carries its pid (ownership labels): its Runs, its proxy, its stand-in.
  const left = servePid === "" ? [] : leftoversLabelled(`${PID_LABEL}=${servePid}`);
  return reportEnd(`${PID_LABEL}=${servePid} (the service's)`, left, failure);
}

runBench(main);
