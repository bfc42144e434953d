// A load test of the service as an Operator runs it: `agentcage serve --stand-in --network-policy
// model` as a process of its own, N claude Runs submitted at once over HTTP with enough slots that
// most run together, while other work keeps the cores busy (BENCH_BUSY_CORES `yes` processes,
// bounded). Slow is not dead: every Run should complete. Prints completed / refused at submit /
// failed by end reason, the time until all were done, the service's and the engine's peak memory,
// and what was left; exits non-zero when a Run did not complete or anything is left behind.
// With --stub (`npm run bench:runs-per-sec`): Runs per second of N stub-agent Runs at once under
// `--network-policy none` against the engine's floor, interleaved rounds (runsPerSecond below).

import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chown, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import { join, resolve } from "node:path";
import { limits } from "../src/runtime/index.js";
import { BenchFailure, parseRuns, reportEnd, runBench, summarize } from "./measure.js";
import { docker, engineFloorMs, leftoversLabelled } from "./engine-words.js";
import { memoryPeaks } from "./memory-peaks.js";

const DEFAULT_RUNS = 100;
const MAX_RUNS = 1000;
/** serve's own cap on --slots. */
const MAX_SLOTS = limits.MAX_CONCURRENT_RUNS;
/** --stub: rounds of the service's ways and the floor, taking turns. */
const DEFAULT_ROUNDS = 3;
/** --stub: the target, Runs per second at least this share of the engine's floor (within 2x). */
const TARGET_RATIO = 0.5;
/** --stub: the image, the test image with a claude that answers at once (the test image's own waits a second). */
const STUB_IMAGE = "agentcage-bench-stub:latest";
const STUB_FROM = "agentcage-test:latest";
const STUB_CLAUDE = `#!/bin/sh
# A claude that reads its prompt and answers at once, in the shape of claude's stream-json.
cat >/dev/null
echo '{"type":"system","subtype":"init","session_id":"stub-session","model":"stub","tools":[]}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"stub","session_id":"stub-session","num_turns":1,"total_cost_usd":0,"usage":{"input_tokens":1,"output_tokens":1}}'
`;
/** --stub, as root: serve also runs as the orchestrator image's user, as compose runs it (writes bounded by engine volumes, not a tmpfs it mounts). */
const ORCHESTRATOR_USER = 10002;
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

type Serving = { url: string; child: ChildProcess; stderr: () => string };

/**
 * `agentcage serve` from this checkout's build (or BENCH_AGENTCAGE, another build's dist/cli/main.js)
 * with `args`, once it listens; as `user` (uid:gid, plus `group`) when given.
 */
async function startServe(
  runtimeDir: string,
  args: readonly string[],
  token: string,
  env: Readonly<Record<string, string>> = {},
  user?: { readonly uid: number; readonly group: number },
): Promise<Serving> {
  const main = process.env["BENCH_AGENTCAGE"] ?? resolve("dist/cli/main.js");
  const words = [main, "serve", "--port", "0", "--runtime-dir", runtimeDir, "--queue-bound", String(MAX_RUNS), ...args];
  const [command, ...rest] =
    user === undefined
      ? [process.execPath, ...words]
      : ["setpriv", "--reuid", String(user.uid), "--regid", String(user.uid), "--groups", String(user.group), "--", process.execPath, ...words];
  const child = spawn(command as string, rest, { env: { ...process.env, AGENTCAGE_TOKEN: token, ...env }, stdio: ["ignore", "ignore", "pipe"] });
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
  const argv = process.argv.slice(2);
  if (argv.includes("--stub")) return runsPerSecond(argv.filter((arg) => arg !== "--stub"));
  const runs = parseRuns(argv, process.env, DEFAULT_RUNS, MAX_RUNS);
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
    serve = await startServe(runtimeDir, ["--stand-in", "--network-policy", "model", "--slots", String(slots)], token);
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

/** The stub agent's image, built on the test image when it is not there yet (a second or two). */
async function stubImage(): Promise<string> {
  const context = await mkdtemp(join(os.tmpdir(), "agentcage-bench-stub-"));
  try {
    await writeFile(join(context, "claude"), STUB_CLAUDE, { mode: 0o755 });
    await writeFile(join(context, "Dockerfile"), `FROM ${STUB_FROM}\nCOPY claude /usr/local/bin/claude\n`);
    docker("build", "--quiet", "--tag", STUB_IMAGE, context);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return STUB_IMAGE;
}

type Way = { readonly name: string; readonly user?: { readonly uid: number; readonly group: number } };

/**
 * One round of one way: serve started (not timed), `runs` stub Runs submitted at once, each followed
 * on its event stream to its end; the time from the first submit to the last end, and what ended how.
 */
async function serveRound(
  way: Way,
  image: string,
  runs: number,
  slots: number | undefined,
): Promise<{ ms: number; ended: Record<string, number>; pid: string }> {
  const runtimeDir = await mkdtemp(join(os.tmpdir(), "agentcage-bench-runs-per-sec-"));
  if (way.user !== undefined) await chown(runtimeDir, way.user.uid, way.user.uid);
  const token = randomBytes(24).toString("base64url");
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const args = ["--image", image, "--network-policy", "none", ...(slots === undefined ? [] : ["--slots", String(slots)])];
  // A made-up key: the stub needs none, the claude adapter asks for one.
  let serve: Serving | undefined;
  try {
    serve = await startServe(runtimeDir, args, token, { ANTHROPIC_API_KEY: "sk-bench-stub-key" }, way.user);
    const url = serve.url;
    const started = performance.now();
    const reasons = await Promise.all(
      Array.from({ length: runs }, async () => {
        const answer = await fetch(`${url}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ cli: "claude", prompt: "stub" }) });
        const body = (await answer.json()) as { id?: string; error?: string };
        if (body.id === undefined) return `refused: HTTP ${answer.status} ${body.error ?? ""}`;
        // The stream closes after the one end event.
        const events = await (await fetch(`${url}/v1/runs/${body.id}/events`, { headers })).text();
        const end = events.slice(events.lastIndexOf("event: end"));
        return /"reason":"([a-z_]+)"/.exec(end)?.[1] ?? "no end event";
      }),
    );
    const ms = performance.now() - started;
    const ended: Record<string, number> = {};
    for (const reason of reasons) ended[reason] = (ended[reason] ?? 0) + 1;
    return { ms, ended, pid: String(serve.child.pid) };
  } finally {
    if (serve !== undefined) {
      const exited = new Promise((done) => serve?.child.once("exit", done));
      serve.child.kill("SIGTERM");
      await exited;
    }
    await rm(runtimeDir, { recursive: true, force: true });
  }
}

/**
 * --stub: BENCH_ROUNDS rounds (default 3) in which each way of serving `runs` stub-agent Runs at once
 * (serve under --network-policy none, no proxy, its default slots or BENCH_SLOTS) and the engine's
 * floor (the same count of `docker run --rm --network none` of the same image, `true`, as many at once
 * as the slots) take turns. Prints each round's Runs per second, then each way's median share of the
 * floor against the target of TARGET_RATIO.
 */
async function runsPerSecond(argv: readonly string[]): Promise<number> {
  const runs = parseRuns(argv, process.env, DEFAULT_RUNS, MAX_RUNS);
  const rounds = wholeFrom("BENCH_ROUNDS", DEFAULT_ROUNDS, 100) || 1;
  const asked = wholeFrom("BENCH_SLOTS", 0, MAX_SLOTS);
  const slots = asked === 0 ? undefined : asked;
  const atOnce = slots ?? limits.runsMemoryHolds();
  const image = await stubImage();
  const ways: Way[] = [{ name: process.getuid?.() === 0 ? "serve as root" : "serve" }];
  if (process.getuid?.() === 0) {
    const group = (await stat(process.env["DOCKER_HOST"]?.replace(/^unix:\/\//, "") || "/var/run/docker.sock")).gid;
    ways.push({ name: `serve as uid ${ORCHESTRATOR_USER}`, user: { uid: ORCHESTRATOR_USER, group } });
  }
  const floorLabel = `agentcage.owner=agentcage-bench-floor-${process.pid}`;
  const [floorKey, floorValue] = floorLabel.split("=") as [string, string];
  console.log(
    `${runs} stub claude Runs at once through agentcage serve --network-policy none (${slots === undefined ? `its default slots, ${atOnce} here` : `--slots ${slots}`}) on ${image}, against the engine's floor: ${runs} containers, ${atOnce} at once, as docker run --rm --network none ${image} true asks the Engine API; ${rounds} rounds, taking turns`,
  );
  console.log(
    `node ${process.version}, docker engine ${docker("version", "--format", "{{.Server.Version}}")}, ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}`,
  );
  const rates: Record<string, number[]> = { floor: [], ...Object.fromEntries(ways.map((way) => [way.name, []])) };
  const pids: string[] = [];
  let failure: string | undefined;
  const perSecond = (ms: number) => runs / (ms / 1000);
  try {
    for (let round = 1; round <= rounds; round++) {
      const said: string[] = [];
      // Each round the floor goes first or last in turn, so a drift of the machine's load hits both.
      const floorFirst = round % 2 === 1;
      const floor = async () => {
        const rate = perSecond(await engineFloorMs(image, runs, atOnce, { [floorKey]: floorValue }));
        rates["floor"]?.push(rate);
        said.push(`floor ${rate.toFixed(2)}/s`);
      };
      if (floorFirst) await floor();
      for (const way of ways) {
        const done = await serveRound(way, image, runs, slots);
        pids.push(done.pid);
        const rate = perSecond(done.ms);
        rates[way.name]?.push(rate);
        const completed = done.ended["completed"] ?? 0;
        said.push(`${way.name} ${rate.toFixed(2)}/s${completed === runs ? "" : ` (${JSON.stringify(done.ended)})`}`);
        if (completed < runs) failure = `${runs - completed} of ${runs} Runs did not complete (${way.name}): ${JSON.stringify(done.ended)}`;
      }
      if (!floorFirst) await floor();
      console.log(`round ${round}: ${said.join("; ")}; load average ${os.loadavg()[0]?.toFixed(0)}`);
    }
    const floorRates = rates["floor"] ?? [];
    for (const way of ways) {
      const ratios = (rates[way.name] ?? []).map((rate, i) => rate / (floorRates[i] ?? Number.NaN));
      const median = summarize(ratios).median;
      console.log(
        `${way.name}: median ${summarize(rates[way.name] ?? []).median.toFixed(2)} Runs/s against the floor's ${summarize(floorRates).median.toFixed(2)}/s; ratio per round ${ratios.map((r) => r.toFixed(2)).join(", ")}, median ${median.toFixed(2)} (target >= ${TARGET_RATIO}): ${median >= TARGET_RATIO ? "ok" : "MISS"}`,
      );
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const left = [...pids.flatMap((pid) => leftoversLabelled(`${PID_LABEL}=${pid}`)), ...leftoversLabelled(floorLabel)];
  return reportEnd(`${PID_LABEL} of each serve, or ${floorLabel}`, left, failure);
}

runBench(main);
