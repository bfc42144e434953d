// Measures one Run's events fanned out to many followers over Server-Sent Events: the service's
// GET /v1/runs/:id/events (its real app over the file store, as serve makes it, with a stub runner
// whose events go through the same onEvent a real Run's do) against a plain Node `http` SSE server
// written here (the floor: each event serialized once, written to every follower). The two take
// turns in fresh processes; the followers live in processes of their own, so their cost is not the
// server's. Each event carries the time it was due; each follower notes when it arrived. Measured,
// not asserted: the ratios are printed with their targets, ok or MISS.

import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import type { AgentEvent } from "../src/agents/index.js";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../src/runner/index.js";
import { createRunMetrics } from "../src/server/metrics/index.js";
import { createRunService, type Lifecycle } from "../src/server/runs/index.js";
import { buildApp } from "../src/server/serve/app.js";
import { openFileStore } from "../src/server/serve/service-store.js";
import { BenchFailure, parseRuns, runBench, summarize } from "./measure.js";

/** How long each measurement emits events. */
const SECONDS = 10;
/** The ratio's crowd: 100 followers at 100 events a second. */
const FOLLOWERS = 100;
const RATE_PER_SECOND = 100;
/**
 * The crowd the service must hold without its loop falling behind: 1,000 followers at 10 events a
 * second, the same 10,000 deliveries a second as above over ten times the connections (at 100 events
 * a second, 100,000 deliveries a second, the followers' own processes cannot keep up on 2 cores).
 */
const CROWD = 1000;
const CROWD_RATE_PER_SECOND = 10;
/** Follower processes for a crowd: one per core of this machine's two, so no one process is the floor. */
const FOLLOWER_PROCESSES = 2;
/** Text in each event beside its due time: about a line of an agent's answer. */
const PADDING = "x".repeat(200);
/** The target, for both crowds: delivery p99 within 1.5x the plain server's (at 1,000: the service does not fall behind where the floor keeps up). */
const TARGET_RATIO = 1.5;

type Side = "plain" | "service";
/** Where the followers connect, and as whom. */
type Door = { readonly url: string; readonly headers: Record<string, string> };
type Plan = { readonly events: number; readonly ratePerSecond: number };
type ServerReport = { readonly loopP50Ms: number; readonly loopP99Ms: number; readonly loopMaxMs: number; readonly cpuMs: number; readonly wallMs: number };
type FollowerReport = { readonly latencies: Float64Array; readonly cut: number; readonly cpuMs: number };

const now = (): number => performance.timeOrigin + performance.now();

/** One event's data: its due time first, where a follower finds it without parsing the rest. */
const eventData = (due: number): AgentEvent => ({ type: "assistant_text", text: `sent=${due.toFixed(3)};${PADDING}` });

/** Emits `plan.events` events at the plan's rate, each stamped with the time it was due (a late loop is counted, not hidden). */
async function emitOnSchedule(plan: Plan, emit: (data: AgentEvent) => void): Promise<void> {
  const start = now() + 20;
  const step = 1000 / plan.ratePerSecond;
  for (let i = 0; i < plan.events; i++) {
    const due = start + i * step;
    const wait = due - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    emit(eventData(due));
  }
}

/** What the server's process reports of one measurement: its loop's delays and its CPU while it emitted. */
async function measured(emitting: () => Promise<void>): Promise<ServerReport> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu = process.cpuUsage();
  const started = now();
  await emitting();
  const used = process.cpuUsage(cpu);
  loop.disable();
  return {
    loopP50Ms: loop.percentile(50) / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    cpuMs: (used.user + used.system) / 1000,
    wallMs: now() - started,
  };
}

/** The floor: a plain Node SSE server; each event serialized once and written to every follower, then an end. */
async function plainServer(send: (message: unknown) => void, next: () => Promise<Plan>): Promise<void> {
  const followers = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
    response.write(": open\n\n");
    followers.add(response);
    request.on("close", () => followers.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  send({ door: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, headers: {} } satisfies Door });
  const plan = await next();
  let id = 0;
  const report = await measured(() =>
    emitOnSchedule(plan, (data) => {
      id += 1;
      const text = `id: ${id}\nevent: agent\ndata: ${JSON.stringify(data)}\n\n`;
      for (const follower of followers) follower.write(text);
    }),
  );
  send({ report });
  // Every follower's last byte out before the server closes (close cuts what is still buffered).
  const end = `id: ${id + 1}\nevent: end\ndata: {}\n\n`;
  await Promise.all([...followers].map((follower) => new Promise((resolve) => follower.end(end, () => resolve(undefined)))));
  await new Promise((resolve) => server.close(resolve));
}

/** The service: its app over the file store, one Run whose stub runner emits on the plan's schedule; a tenant's key follows it. */
async function serviceServer(send: (message: unknown) => void, next: () => Promise<Plan>): Promise<void> {
  const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-bench-sse-"));
  try {
    const store = await openFileStore(runtimeDir);
    let report: Promise<ServerReport> | undefined;
    const run = async (_request: unknown, _prompt: string, options: AgentRunOptions): Promise<AgentOutcome> => {
      const plan = await next();
      report = measured(() => emitOnSchedule(plan, (data) => options.onEvent?.(data)));
      await report;
      return {
        runId: options.runId ?? "bench",
        ok: true,
        reason: "completed",
        durationMs: 1,
        stdoutBytes: 0,
        stderrBytes: 0,
        stderr: "",
        credential: "api_key",
        cli: "claude",
        result: {
          ok: true,
          reason: "completed",
          text: "done",
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
          costUsd: 0,
        },
      } as AgentOutcome;
    };
    const lifecycle: Array<(change: Lifecycle) => void> = [store.feed.append];
    const quotasOf = () => ({ maxRunning: 4, maxQueued: 4 });
    const service = createRunService({
      runner: { run } as unknown as AgentRunner,
      store: store.runs,
      files: store.files,
      slots: 4,
      queueBound: 4,
      quotasOf,
      onLifecycle: (change) => {
        for (const listener of lifecycle) listener(change);
      },
    });
    await service.recover();
    const token = "a-token-for-the-sse-bench";
    const app = await buildApp({
      service,
      token,
      tenancy: store.tenancy,
      feed: store.feed,
      quotasOf,
      readiness: async () => ({ ready: true, engine: true, image: true, credentials: {}, slots: { total: 4, running: 0, queued: 0 } }),
      facts: {
        version: "0.0.0",
        startedAt: new Date().toISOString(),
        agentImage: "agentcage-agent:latest",
        standIn: false,
        egress: async () => ({ networkPolicy: "none" as const, proxy: "none" as const }),
      },
      logger: pino({ level: "silent" }),
      metrics: createRunMetrics(() => new Map()),
      onLifecycle: (listener) => lifecycle.push(listener),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const asOperator = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const made = await fetch(`${url}/v1/keys`, { method: "POST", headers: asOperator, body: JSON.stringify({ tenant: "bench", scope: "runs:write" }) });
    if (made.status !== 201) throw new BenchFailure(`POST /v1/keys answered ${made.status}: ${await made.text()}`);
    const key = (await made.json()) as { key: string };
    const asTenant = { authorization: `Bearer ${key.key}`, "content-type": "application/json" };
    const posted = await fetch(`${url}/v1/runs`, { method: "POST", headers: asTenant, body: JSON.stringify({ cli: "claude", prompt: "follow me" }) });
    if (posted.status !== 202) throw new BenchFailure(`POST /v1/runs answered ${posted.status}: ${await posted.text()}`);
    const { id } = (await posted.json()) as { id: string };
    send({ door: { url: `${url}/v1/runs/${id}/events`, headers: { authorization: asTenant.authorization } } satisfies Door });
    // The Run ends once the runner returns; its end closes every stream.
    while (report === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
    send({ report: await report });
    for (let waited = 0; (await service.get(id))?.endedAt === undefined && waited < 10_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await app.close();
    await store.flush();
  } finally {
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

/** A process of followers: `count` streams of the door; each due time it reads becomes a latency, until every stream ends. */
async function followers(send: (message: unknown) => void, door: Door, count: number): Promise<void> {
  let latencies = new Float64Array(1 << 16);
  let kept = 0;
  let ended = 0;
  let opened = 0;
  let cut = 0;
  const cpu = process.cpuUsage();
  const note = (latency: number) => {
    if (kept === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[kept++] = latency;
  };
  const follow = () =>
    new Promise<void>((resolve, reject) => {
      const asked = httpRequest(door.url, { headers: { accept: "text/event-stream", ...door.headers }, agent: false }, (answer) => {
        if (answer.statusCode !== 200) return reject(new BenchFailure(`the stream answered ${answer.statusCode}`));
        answer.setEncoding("utf8");
        let rest = "";
        let first = true;
        answer.on("data", (chunk: string) => {
          const arrived = now();
          if (first) {
            first = false;
            resolve();
          }
          rest += chunk;
          let end = rest.indexOf("\n\n");
          let from = 0;
          while (end !== -1) {
            const at = rest.indexOf("sent=", from);
            if (at !== -1 && at < end) note(arrived - Number.parseFloat(rest.slice(at + 5, at + 25)));
            from = end + 2;
            end = rest.indexOf("\n\n", from);
          }
          rest = rest.slice(from);
        });
        // A stream cut before its end is counted too: its missing deliveries say so.
        answer.on("close", () => {
          ended += 1;
          if (!answer.complete) cut += 1;
          if (ended === count) finish();
        });
      });
      asked.on("error", reject);
      asked.end();
    });
  const finish = () => {
    const used = process.cpuUsage(cpu);
    send({ followed: { latencies: latencies.slice(0, kept), cut, cpuMs: (used.user + used.system) / 1000 } satisfies FollowerReport });
  };
  // A hundred at a time: a thousand connections at once would overflow the listen backlog.
  while (opened < count) {
    const batch = Math.min(100, count - opened);
    await Promise.all(Array.from({ length: batch }, follow));
    opened += batch;
  }
  send({ ready: true });
}

/** A child of this file in one role, spoken to over IPC (advanced serialization: typed arrays cross whole). */
function child(role: string, ...args: string[]): { readonly process: ChildProcess; readonly next: <T>(key: string) => Promise<T> } {
  const started = fork(fileURLToPath(import.meta.url), [`--role=${role}`, ...args], {
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<string, (value: unknown) => void>();
  const arrived = new Map<string, unknown>();
  started.on("message", (message: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(message)) {
      const wake = waiting.get(key);
      if (wake === undefined) arrived.set(key, value);
      else {
        waiting.delete(key);
        wake(value);
      }
    }
  });
  const next = <T>(key: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (arrived.has(key)) {
        const value = arrived.get(key) as T;
        arrived.delete(key);
        return resolve(value);
      }
      waiting.set(key, resolve as (value: unknown) => void);
      started.once("exit", (code) => (waiting.has(key) ? reject(new BenchFailure(`the ${role} process exited ${code} before it sent ${key}`)) : undefined));
    });
  return { process: started, next };
}

type Measurement = {
  readonly side: Side;
  readonly followers: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly server: ServerReport;
  readonly followerCpuMs: number;
};

/** One measurement: a server of `side`, `count` followers in their own processes, `plan`'s events; every event must reach every follower. */
async function measure(side: Side, count: number, plan: Plan): Promise<Measurement> {
  const server = child("server", side);
  try {
    const door = await server.next<Door>("door");
    const processes = count >= CROWD ? FOLLOWER_PROCESSES : 1;
    const crowds = Array.from({ length: processes }, (_, i) => {
      const share = Math.floor(count / processes) + (i < count % processes ? 1 : 0);
      const made = child("followers", JSON.stringify(door), String(share));
      return { ...made, share };
    });
    await Promise.all(crowds.map((crowd) => crowd.next("ready")));
    server.process.send({ plan });
    const [report, ...followed] = await Promise.all([server.next<ServerReport>("report"), ...crowds.map((crowd) => crowd.next<FollowerReport>("followed"))]);
    const all = new Float64Array(followed.reduce((sum, part) => sum + part.latencies.length, 0));
    let at = 0;
    for (const part of followed) {
      all.set(part.latencies, at);
      at += part.latencies.length;
    }
    const expected = count * plan.events;
    const cut = followed.reduce((sum, part) => sum + part.cut, 0);
    if (all.length !== expected || cut > 0)
      throw new BenchFailure(
        `${side}: ${all.length} deliveries of ${expected} (${count} followers x ${plan.events} events); ${cut} streams cut before their end`,
      );
    all.sort();
    const rank = (q: number) => all[Math.min(all.length - 1, Math.ceil(q * all.length) - 1)] ?? Number.NaN;
    for (const crowd of crowds) crowd.process.kill();
    return {
      side,
      followers: count,
      p50: rank(0.5),
      p99: rank(0.99),
      max: all[all.length - 1] ?? Number.NaN,
      server: report as ServerReport,
      followerCpuMs: followed.reduce((sum, part) => sum + part.cpuMs, 0),
    };
  } finally {
    await new Promise((resolve) => {
      if (server.process.exitCode !== null) return resolve(undefined);
      server.process.once("exit", resolve);
      setTimeout(() => server.process.kill(), 15_000).unref();
    });
  }
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));

function line(m: Measurement, plan: Plan): string {
  const seconds = plan.events / plan.ratePerSecond;
  return (
    `${m.side.padEnd(7)} ${String(m.followers).padStart(5)} followers: delivery p50 ${ms(m.p50)} ms, p99 ${ms(m.p99)} ms, max ${ms(m.max)} ms; ` +
    `loop delay p50 ${ms(m.server.loopP50Ms)} p99 ${ms(m.server.loopP99Ms)} max ${ms(m.server.loopMaxMs)} ms; ` +
    `server CPU ${((m.server.cpuMs / 1000 / seconds) * 100).toFixed(0)}%, followers' ${((m.followerCpuMs / 1000 / seconds) * 100).toFixed(0)}%`
  );
}

async function main(): Promise<number> {
  const rounds = parseRuns(process.argv.slice(2), process.env, 3, 50);
  const crowds = [
    { followers: FOLLOWERS, plan: { events: RATE_PER_SECOND * SECONDS, ratePerSecond: RATE_PER_SECOND } },
    { followers: CROWD, plan: { events: CROWD_RATE_PER_SECOND * SECONDS, ratePerSecond: CROWD_RATE_PER_SECOND } },
  ];
  console.log(
    `${rounds} rounds, the two sides in turn (order alternating), ${SECONDS} s each: ${FOLLOWERS} followers at ${RATE_PER_SECOND} events/s, ` +
      `${CROWD} at ${CROWD_RATE_PER_SECOND} events/s; each delivery's latency from its event's due time`,
  );
  const ratios = new Map<number, number[]>(crowds.map((crowd) => [crowd.followers, []]));
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ["plain", "service"] : ["service", "plain"];
    for (const { followers: count, plan } of crowds) {
      const got = new Map<Side, Measurement>();
      for (const side of order) {
        const m = await measure(side, count, plan);
        got.set(side, m);
        console.log(`round ${round + 1} ${line(m, plan)}`);
      }
      const plain = got.get("plain") as Measurement;
      const service = got.get("service") as Measurement;
      const ratio = service.p99 / plain.p99;
      ratios.get(count)?.push(ratio);
      console.log(
        `round ${round + 1} ${count} followers: delivery p99 ${ratio.toFixed(2)}x the plain server's (target <= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "ok" : "MISS"}); ` +
          `loop delay p99 ${ms(service.server.loopP99Ms)} ms against ${ms(plain.server.loopP99Ms)} ms`,
      );
    }
  }
  for (const [count, values] of ratios) {
    const middle = summarize(values).median;
    console.log(
      `median of ${rounds} rounds, ${count} followers: delivery p99 ${middle.toFixed(2)}x the plain server's (target <= ${TARGET_RATIO}x: ${middle <= TARGET_RATIO ? "ok" : "MISS"})`,
    );
  }
  return 0;
}

/** A child's side of the IPC: what it sends, and the plan it waits for. */
function childChannel(): { readonly send: (message: unknown) => void; readonly plan: () => Promise<Plan> } {
  const send = (message: unknown) => process.send?.(message);
  const plan = () => new Promise<Plan>((resolve) => process.once("message", (message: { plan: Plan }) => resolve(message.plan)));
  return { send, plan };
}

const role = process.argv[2]?.startsWith("--role=") === true ? process.argv[2].slice("--role=".length) : undefined;
if (role === undefined) runBench(main);
else {
  const { send, plan } = childChannel();
  const work =
    role === "server"
      ? process.argv[3] === "plain"
        ? plainServer(send, plan)
        : serviceServer(send, plan)
      : followers(send, JSON.parse(process.argv[3] ?? "{}") as Door, Number(process.argv[4]));
  work.then(
    () => (role === "server" ? process.exit(0) : undefined),
    (error: unknown) => {
      console.error(`sse-fanout ${role} failed: ${error instanceof Error ? error.stack : String(error)}`);
      process.exit(1);
    },
  );
}
