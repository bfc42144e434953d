// Measures what the egress proxy costs a model call, in three parts, each against its floor:
// 1. latency: the same small streamed call to the stand-in model (claude's /v1/messages, then
//    codex's /v1/responses), straight, through a plain node:http hop (pipe, nothing looked at: the
//    floor of any proxy) and through the proxy (token swap, path check, body read and checked,
//    budget, the answer masked and metered, one log line), taking turns on loopback;
// 2. throughput: a large streamed answer (STREAM_BYTES of Anthropic server-sent events, written
//    upstream a TLS record's worth at a time) the same three ways, taking turns;
// 3. the stream masker alone (redact's maskingStream over the same events), in bytes per second.
// The client runs in this process, the upstreams (the stand-in, the large answer) in a process of
// their own, and the hop and the proxy in a third, as the proxy runs in production: none shares an
// event loop with another. Prints each side, the added latency at p50 and p90, the proxy process's
// CPU per call and per MB, and the ratios against the targets; a miss prints MISS. Measured, never
// asserted. EGRESS_BENCH_PROXY_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") is given to node for
// the proxies' process, to profile it.

import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { pino, type Logger } from "pino";
import { createEgressProxy, type EgressProxy } from "../src/egress/index.js";
import { createMasker, maskingStream } from "../src/redact/index.js";
import { startStandInModel } from "../test/stand-in/index.js";
import { BenchFailure, parseRuns, runBench, summarize, type Summary } from "./measure.js";

const TARGET_ADDED_P50_MS = 0.5;
const TARGET_THROUGHPUT_RATIO = 0.8;
const WARM_UP_CALLS = 30;
const MiB = 1024 * 1024;
/** The large answer: about this many bytes of events. */
const STREAM_BYTES = 32 * MiB;
/** Written upstream this many bytes at a time: the most a TLS record carries, what the proxy reads at a time from a provider over HTTPS. */
const STREAM_WRITE_BYTES = 16 * 1024;
/** The answer's last event says this many output tokens, so the proxy's meter shows it read the whole stream. */
const STREAM_OUTPUT_TOKENS = 123_456;
const CREDENTIAL = "sk-bench-0123456789abcdef0123456789";
/** Which of the bench's processes this is; the client's has none. */
const ROLE_VARIABLE = "EGRESS_BENCH_ROLE";

type Cli = "anthropic" | "openai";
const CALLS: Readonly<Record<Cli, { readonly path: string; readonly body: string; readonly auth: (key: string) => Record<string, string> }>> = {
  anthropic: {
    path: "/v1/messages?beta=true",
    body: JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      stream: true,
      messages: [{ role: "user", content: "What is the capital of France?" }],
    }),
    auth: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
  },
  openai: {
    path: "/v1/responses",
    body: JSON.stringify({ model: "gpt-5", stream: true, input: "What is the capital of France?", tools: [{ type: "function", name: "shell" }] }),
    auth: (key) => ({ authorization: `Bearer ${key}` }),
  },
};

type Way = "direct" | "hop" | "proxy";
const WAYS: readonly Way[] = ["direct", "hop", "proxy"];
const LABELS: Readonly<Record<Way, string>> = { direct: "direct", hop: "plain hop", proxy: "egress proxy" };

/** What the upstreams' process answers once listening. */
type Upstreams = { readonly standIn: string; readonly large: string };
/** What the proxies' process answers once listening: a hop and a proxy in front of each upstream, and a token of each CLI's Run. */
type Proxies = {
  readonly small: { readonly hop: string; readonly proxy: string; readonly tokens: Readonly<Record<Cli, string>> };
  readonly large: { readonly hop: string; readonly proxy: string; readonly token: string };
};
/** What the client asks the proxies' process, and what it answers (CPU in microseconds). */
type Ask = { readonly ask: "cpu" } | { readonly ask: "meter"; readonly runId: string } | { readonly ask: "exit" };
type Meter = { readonly turns: number; readonly usage: { readonly outputTokens: number } } | undefined;

/** One streamed call, from the request to the answer's last byte, over a keep-alive agent as a CLI holds; answers ms and bytes. */
function call(cli: Cli, agent: Agent, base: string, key: string): Promise<{ readonly ms: number; readonly bytes: number }> {
  const url = new URL(CALLS[cli].path, base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", ...CALLS[cli].auth(key) },
      },
      (res) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => (bytes += chunk.length));
        res.on("end", () => {
          if (res.statusCode !== 200 || bytes === 0) reject(new BenchFailure(`a call through ${base} answered HTTP ${res.statusCode} with ${bytes} bytes`));
          else resolve({ ms: performance.now() - started, bytes });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(CALLS[cli].body);
  });
}

/** A plain HTTP hop to `upstream`: the request and the answer piped through, nothing read or changed. */
async function startHop(upstream: string): Promise<string> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const up = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  return listenOnLoopback(server);
}

async function listenOnLoopback(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A pino logger whose lines are made, masked and serialized as in production, then dropped. */
function droppingLogger(): Logger {
  return pino(new Writable({ write: (_chunk, _encoding, callback) => callback() }));
}

function row(label: string, s: Summary): string {
  return `${label.padEnd(26)} ${[s.median, s.p90, s.min].map((v) => v.toFixed(3).padStart(9)).join(" ")}`;
}

function verdict(ok: boolean): string {
  return ok ? "ok" : "MISS";
}

/** The upstreams' process: the stand-in for small calls, and a server answering every POST with the large answer. */
async function serveUpstreams(): Promise<void> {
  const standIn = await startStandInModel({ scenario: "plain" });
  const answer = largeAnswer();
  const server = createServer((req, res) => {
    req.resume();
    req.once("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      let at = 0;
      const pump = (): void => {
        while (at < answer.length) {
          const more = res.write(answer.subarray(at, at + STREAM_WRITE_BYTES));
          at += STREAM_WRITE_BYTES;
          if (!more) {
            res.once("drain", pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
  });
  const ready: Upstreams = { standIn: standIn.url, large: await listenOnLoopback(server) };
  process.send?.(ready);
  process.once("disconnect", () => process.exit(0));
}

/** The proxies' process: a hop and an egress proxy in front of each upstream; answers its CPU time and a proxy's meter when asked. */
async function serveProxies(upstreams: Upstreams): Promise<void> {
  const small: EgressProxy = await createEgressProxy({ upstreams: { anthropic: upstreams.standIn, openai: upstreams.standIn }, logger: droppingLogger() });
  const large: EgressProxy = await createEgressProxy({ upstreams: { anthropic: upstreams.large, openai: upstreams.large }, logger: droppingLogger() });
  const credential = { kind: "api_key", value: CREDENTIAL } as const;
  const tokens = {
    anthropic: (await small.register({ runId: "bench-anthropic", provider: "anthropic", credential })).token,
    openai: (await small.register({ runId: "bench-openai", provider: "openai", credential })).token,
  };
  const { token } = await large.register({ runId: "bench-stream", provider: "anthropic", credential });
  process.on("message", (message: Ask) => {
    if (message.ask === "cpu") {
      const used = process.cpuUsage();
      process.send?.({ cpu: used.user + used.system });
    } else if (message.ask === "meter") {
      const proxy = message.runId === "bench-stream" ? large : small;
      void proxy.meter(message.runId).then((meter) => process.send?.({ meter }));
    } else {
      // A clean exit, so a --cpu-prof profile is written.
      process.exit(0);
    }
  });
  process.once("disconnect", () => process.exit(0));
  const ready: Proxies = {
    small: { hop: await startHop(upstreams.standIn), proxy: small.url, tokens },
    large: { hop: await startHop(upstreams.large), proxy: large.url, token },
  };
  process.send?.(ready);
}

/** One of the bench's processes, started with `role`; answers it with what it sent once ready. */
async function startProcess<T>(role: string, data: unknown, execArgv: readonly string[] = []): Promise<{ readonly child: ChildProcess; readonly ready: T }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [ROLE_VARIABLE]: role, EGRESS_BENCH_DATA: JSON.stringify(data) },
    execArgv: [...execArgv],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = once(child, "exit").then(([code]) => ({ exited: code as number | null }));
  const first = await Promise.race([once(child, "message").then(([message]) => ({ ready: message as T })), exited]);
  if ("exited" in first) throw new BenchFailure(`the ${role} process exited with ${String(first.exited)} before it was ready`);
  return { child, ready: first.ready };
}

/** Asks the proxies' process; answers its reply. */
async function ask<T>(child: ChildProcess, message: Ask): Promise<T> {
  const reply = once(child, "message");
  child.send(message);
  return ((await reply) as [T])[0];
}

async function cpuOf(child: ChildProcess): Promise<number> {
  return (await ask<{ cpu: number }>(child, { ask: "cpu" })).cpu;
}

/** The CPU (microseconds) the proxies' process spends answering a question about its CPU, which each measure around a call includes: the median of 200. */
async function askingCost(child: ChildProcess): Promise<number> {
  const costs: number[] = [];
  for (let i = 0; i < 200; i++) {
    const before = await cpuOf(child);
    costs.push((await cpuOf(child)) - before);
  }
  return summarize(costs).median;
}

/** The proxies' process, what it sent once ready, and what asking it its CPU costs it (microseconds). */
type ProxiesProcess = { readonly child: ChildProcess; readonly ready: Proxies; readonly asking: number };

/** Part 1: small calls, the three ways taking turns (which goes first rotates, so none always follows another's garbage). */
async function latency(runs: number, upstreams: Upstreams, proxies: ProxiesProcess): Promise<string[]> {
  const agents = {
    direct: new Agent({ keepAlive: true, maxSockets: 1 }),
    hop: new Agent({ keepAlive: true, maxSockets: 1 }),
    proxy: new Agent({ keepAlive: true, maxSockets: 1 }),
  };
  const verdicts: string[] = [];
  try {
    console.log(`latency: ${runs} small streamed calls each way per CLI on loopback (ms)`);
    console.log(`${"".padEnd(26)} ${"median".padStart(9)} ${"p90".padStart(9)} ${"min".padStart(9)}`);
    for (const cli of ["anthropic", "openai"] as const) {
      const base: Record<Way, { url: string; key: string }> = {
        direct: { url: upstreams.standIn, key: "sk-any" },
        hop: { url: proxies.ready.small.hop, key: "sk-any" },
        proxy: { url: proxies.ready.small.proxy, key: proxies.ready.small.tokens[cli] },
      };
      const timed: Record<Way, number[]> = { direct: [], hop: [], proxy: [] };
      // The proxies' process's CPU time per call through the hop and through the proxy: what a busy
      // machine multiplies into wall time, and much steadier than it.
      const cpuMicros = { hop: 0, proxy: 0 };
      for (let i = 0; i < WARM_UP_CALLS + runs; i++) {
        for (let k = 0; k < WAYS.length; k++) {
          const way = WAYS[(i + k) % WAYS.length] as Way;
          const before = way === "direct" ? 0 : await cpuOf(proxies.child);
          const { ms } = await call(cli, agents[way], base[way].url, base[way].key);
          if (i < WARM_UP_CALLS) continue;
          timed[way].push(ms);
          if (way !== "direct") cpuMicros[way] += (await cpuOf(proxies.child)) - before - proxies.asking;
        }
      }
      const meter = await ask<{ meter: Meter }>(proxies.child, { ask: "meter", runId: `bench-${cli}` });
      if (meter.meter?.turns !== WARM_UP_CALLS + runs)
        throw new BenchFailure(`the proxy metered ${meter.meter?.turns} ${cli} model calls, not ${WARM_UP_CALLS + runs}`);
      const s = { direct: summarize(timed.direct), hop: summarize(timed.hop), proxy: summarize(timed.proxy) };
      for (const way of WAYS) console.log(row(`${cli} ${LABELS[way]}`, s[way]));
      const cpuMs = (way: "hop" | "proxy"): number => cpuMicros[way] / runs / 1000;
      console.log(`${cli} the proxies' process's CPU per call: plain hop ${cpuMs("hop").toFixed(3)} ms, egress proxy ${cpuMs("proxy").toFixed(3)} ms`);
      const added = { p50: s.proxy.median - s.direct.median, p90: s.proxy.p90 - s.direct.p90 };
      verdicts.push(
        `${cli}: added p50 ${added.p50.toFixed(3)} ms, p90 ${added.p90.toFixed(3)} ms (a plain hop adds ${(s.hop.median - s.direct.median).toFixed(3)} / ${(s.hop.p90 - s.direct.p90).toFixed(3)}); CPU per call ${cpuMs("proxy").toFixed(3)} ms against a plain hop's ${cpuMs("hop").toFixed(3)}; target p50 <= ${TARGET_ADDED_P50_MS} ms: ${verdict(added.p50 <= TARGET_ADDED_P50_MS)}`,
      );
    }
    return verdicts;
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
  }
}

/** STREAM_BYTES of an Anthropic answer's events: message_start, text deltas, message_delta with STREAM_OUTPUT_TOKENS, message_stop. */
function largeAnswer(): Buffer {
  const event = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  const parts = [
    event("message_start", {
      type: "message_start",
      message: { id: "msg_bench", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], usage: { input_tokens: 12, output_tokens: 1 } },
    }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ];
  let size = 0;
  for (let i = 0; size < STREAM_BYTES; i++) {
    const delta = event("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: `Line ${i}: Paris is the capital of France, and the quick brown fox jumps over the lazy dog. ` },
    });
    parts.push(delta);
    size += delta.length;
  }
  parts.push(
    event("content_block_stop", { type: "content_block_stop", index: 0 }),
    event("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: STREAM_OUTPUT_TOKENS } }),
    event("message_stop", { type: "message_stop" }),
  );
  return Buffer.from(parts.join(""), "utf8");
}

/** Part 2: the large answer the three ways, taking turns; MB/s each, and the proxies' process's CPU per MB through each. */
async function throughput(rounds: number, upstreams: Upstreams, proxies: ProxiesProcess): Promise<string[]> {
  const agents = {
    direct: new Agent({ keepAlive: true, maxSockets: 1 }),
    hop: new Agent({ keepAlive: true, maxSockets: 1 }),
    proxy: new Agent({ keepAlive: true, maxSockets: 1 }),
  };
  const base: Record<Way, { url: string; key: string }> = {
    direct: { url: upstreams.large, key: "sk-any" },
    hop: { url: proxies.ready.large.hop, key: "sk-any" },
    proxy: { url: proxies.ready.large.proxy, key: proxies.ready.large.token },
  };
  try {
    const mbps: Record<Way, number[]> = { direct: [], hop: [], proxy: [] };
    const cpu = { hop: { micros: 0, mib: 0 }, proxy: { micros: 0, mib: 0 } };
    for (let i = 0; i < rounds + 1; i++) {
      for (let k = 0; k < WAYS.length; k++) {
        const way = WAYS[(i + k) % WAYS.length] as Way;
        const before = way === "direct" ? 0 : await cpuOf(proxies.child);
        const { ms, bytes } = await call("anthropic", agents[way], base[way].url, base[way].key);
        if (bytes < STREAM_BYTES) throw new BenchFailure(`the large answer ${way} was ${bytes} bytes, not ${STREAM_BYTES} or more`);
        if (i < 1) continue;
        mbps[way].push(bytes / MiB / (ms / 1000));
        if (way !== "direct") {
          cpu[way].micros += (await cpuOf(proxies.child)) - before - proxies.asking;
          cpu[way].mib += bytes / MiB;
        }
      }
    }
    const { meter } = await ask<{ meter: Meter }>(proxies.child, { ask: "meter", runId: "bench-stream" });
    if (meter?.turns !== rounds + 1 || meter.usage.outputTokens !== (rounds + 1) * STREAM_OUTPUT_TOKENS) {
      throw new BenchFailure(
        `the proxy metered ${meter?.turns} large answers and ${meter?.usage.outputTokens} output tokens, not ${rounds + 1} and ${(rounds + 1) * STREAM_OUTPUT_TOKENS}`,
      );
    }
    const s = { direct: summarize(mbps.direct), hop: summarize(mbps.hop), proxy: summarize(mbps.proxy) };
    console.log(
      `\nthroughput: a ${(STREAM_BYTES / MiB).toFixed(0)} MiB streamed answer written ${STREAM_WRITE_BYTES / 1024} KiB at a time, ${rounds} times each way (MB/s)`,
    );
    console.log(`${"".padEnd(26)} ${"median".padStart(9)} ${"slowest".padStart(9)} ${"fastest".padStart(9)}`);
    for (const way of WAYS) {
      console.log(`${LABELS[way].padEnd(26)} ${[s[way].median, s[way].min, Math.max(...mbps[way])].map((v) => v.toFixed(0).padStart(9)).join(" ")}`);
    }
    const perCpuSecond = (way: "hop" | "proxy"): number => cpu[way].mib / (cpu[way].micros / 1e6);
    console.log(`the proxies' process, MB per CPU second: plain hop ${perCpuSecond("hop").toFixed(0)}, egress proxy ${perCpuSecond("proxy").toFixed(0)}`);
    const ratio = s.proxy.median / s.direct.median;
    return [
      `throughput: egress proxy / direct ${ratio.toFixed(2)}x, target >= ${TARGET_THROUGHPUT_RATIO}x: ${verdict(ratio >= TARGET_THROUGHPUT_RATIO)}; egress proxy / plain hop ${(s.proxy.median / s.hop.median).toFixed(2)}x; plain hop / direct ${(s.hop.median / s.direct.median).toFixed(2)}x; CPU per MB egress proxy / plain hop ${(perCpuSecond("hop") / perCpuSecond("proxy")).toFixed(2)}x`,
    ];
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
  }
}

/**
 * Part 3: the stream masker alone, over the large answer in STREAM_WRITE_BYTES chunks, in this
 * process: MB per second of its CPU time (steady on a busy machine) and of wall time.
 */
async function masking(rounds: number): Promise<string[]> {
  const answer = largeAnswer();
  const chunks: Buffer[] = [];
  for (let at = 0; at < answer.length; at += STREAM_WRITE_BYTES) chunks.push(answer.subarray(at, at + STREAM_WRITE_BYTES));
  const masker = createMasker([CREDENTIAL]);
  const perCpu: number[] = [];
  const perWall: number[] = [];
  for (let i = 0; i < rounds + 1; i++) {
    const stream = maskingStream(masker);
    let bytes = 0;
    stream.on("data", (chunk: Buffer) => (bytes += chunk.length));
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
    await once(stream, "end");
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (bytes !== answer.length) throw new BenchFailure(`the stream masker passed ${bytes} bytes of ${answer.length}`);
    if (i >= 1) {
      perCpu.push(answer.length / MiB / ((used.user + used.system) / 1e6));
      perWall.push(answer.length / MiB / (wall / 1000));
    }
  }
  const cpu = summarize(perCpu);
  const wall = summarize(perWall);
  console.log(
    `\nstream masker alone (${rounds} passes, ${STREAM_WRITE_BYTES / 1024} KiB chunks): ${cpu.median.toFixed(0)} MB per CPU second at the median (slowest ${cpu.min.toFixed(0)}), ${wall.median.toFixed(0)} MB/s of wall time`,
  );
  return [];
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, 500, 100_000);
  const rounds = Math.max(5, Math.round(runs / 50));
  console.log(
    `egress proxy on loopback, Node ${process.version}, ${runs} calls and ${rounds} large answers each way; client, upstreams and proxies in 3 processes`,
  );
  const upstreams = await startProcess<Upstreams>("upstreams", null);
  const proxyArgs = (process.env["EGRESS_BENCH_PROXY_ARGS"] ?? "").split(" ").filter((arg) => arg !== "");
  const started = await startProcess<Proxies>("proxies", upstreams.ready, proxyArgs);
  const proxies: ProxiesProcess = { ...started, asking: await askingCost(started.child) };
  try {
    const verdicts = [...(await latency(runs, upstreams.ready, proxies)), ...(await throughput(rounds, upstreams.ready, proxies)), ...(await masking(rounds))];
    console.log("");
    for (const line of verdicts) console.log(line);
    return 0;
  } finally {
    const exited = once(proxies.child, "exit");
    proxies.child.send({ ask: "exit" } satisfies Ask);
    await exited;
    upstreams.child.kill();
  }
}

const role = process.env[ROLE_VARIABLE];
if (role === undefined) runBench(main);
else if (role === "upstreams") void serveUpstreams();
else void serveProxies(JSON.parse(process.env["EGRESS_BENCH_DATA"] ?? "null") as Upstreams);
