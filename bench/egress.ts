// Measures what the egress proxy costs a model call, in three parts, each against its floor:
// 1. latency: the same small streamed call to the stand-in model (claude's /v1/messages, then
//    codex's /v1/responses), straight, through a plain node:http hop (pipe, nothing looked at: the
//    floor of any proxy) and through the proxy (token swap, path check, body read and checked,
//    budget, the answer masked and metered, one log line), taking turns on loopback;
// 2. throughput: a large streamed answer (STREAM_BYTES of Anthropic server-sent events) the same
//    three ways, the upstream and the proxies each on a thread of their own (as in their own
//    processes), the client reading here;
// 3. the stream masker alone (redact's maskingStream over the same events), in bytes per second.
// Prints each side, the added latency at p50 and p90 and the ratios against the targets; a miss
// prints MISS. Measured, never asserted.

import { once } from "node:events";
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { pino, type Logger } from "pino";
import { createEgressProxy, type EgressProxy } from "../src/egress/index.js";
import { createMasker, maskingStream } from "../src/redact/index.js";
import { startStandInModel } from "../test/stand-in/index.js";
import { BenchFailure, parseRuns, runBench, summarize, type Summary } from "./measure.js";

const TARGET_ADDED_P50_MS = 0.5;
const TARGET_THROUGHPUT_RATIO = 0.8;
const WARM_UP_CALLS = 30;
const MiB = 1024 * 1024;
/** The large answer: about this many bytes of events, written upstream 64 KiB at a time. */
const STREAM_BYTES = 32 * MiB;
const STREAM_WRITE_BYTES = 64 * 1024;
/** The answer's last event says this many output tokens, so the proxy's meter shows it read the whole stream. */
const STREAM_OUTPUT_TOKENS = 123_456;
const CREDENTIAL = "sk-bench-0123456789abcdef0123456789";

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

/** One streamed call, from the request to the answer's last byte, over a keep-alive agent as a CLI holds; answers ms and bytes (and the body when asked). */
function call(
  cli: Cli,
  agent: Agent,
  base: string,
  key: string,
  keep = false,
): Promise<{ readonly ms: number; readonly bytes: number; readonly body: string }> {
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
        const kept: Buffer[] = [];
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (keep) kept.push(chunk);
        });
        res.on("end", () => {
          if (res.statusCode !== 200 || bytes === 0) reject(new BenchFailure(`a call through ${base} answered HTTP ${res.statusCode} with ${bytes} bytes`));
          else resolve({ ms: performance.now() - started, bytes, body: Buffer.concat(kept).toString("utf8") });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(CALLS[cli].body);
  });
}

/** A plain HTTP hop to `upstream`: the request and the answer piped through, nothing read or changed. */
async function startHop(upstream: string): Promise<{ readonly url: string; readonly close: () => Promise<void> }> {
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
  const url = await listenOnLoopback(server);
  return {
    url,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
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

/** Part 1: small calls, the three ways taking turns (which goes first rotates, so none always follows another's garbage). */
async function latency(runs: number): Promise<string[]> {
  const standIn = await startStandInModel({ scenario: "plain" });
  const proxy = await createEgressProxy({ upstreams: { anthropic: standIn.url, openai: standIn.url }, logger: droppingLogger() });
  const hop = await startHop(standIn.url);
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
      const runId = `bench-${cli}`;
      const { token } = await proxy.register({ runId, provider: cli, credential: { kind: "api_key", value: CREDENTIAL } });
      const base: Record<Way, { url: string; key: string }> = {
        direct: { url: standIn.url, key: "sk-any" },
        hop: { url: hop.url, key: "sk-any" },
        proxy: { url: proxy.url, key: token },
      };
      const timed: Record<Way, number[]> = { direct: [], hop: [], proxy: [] };
      // This process's CPU time (the client, the stand-in and the hop or proxy all run here) per call:
      // what a busy machine multiplies into wall time, and much steadier than it.
      const cpuMicros: Record<Way, number> = { direct: 0, hop: 0, proxy: 0 };
      for (let i = 0; i < WARM_UP_CALLS + runs; i++) {
        for (let k = 0; k < WAYS.length; k++) {
          const way = WAYS[(i + k) % WAYS.length] as Way;
          const cpu = process.cpuUsage();
          const { ms } = await call(cli, agents[way], base[way].url, base[way].key);
          const used = process.cpuUsage(cpu);
          if (i >= WARM_UP_CALLS) {
            timed[way].push(ms);
            cpuMicros[way] += used.user + used.system;
          }
        }
      }
      const cpuMs = (way: Way): number => cpuMicros[way] / runs / 1000;
      const meter = await proxy.meter(runId);
      if (meter?.turns !== WARM_UP_CALLS + runs) throw new BenchFailure(`the proxy metered ${meter?.turns} ${cli} model calls, not ${WARM_UP_CALLS + runs}`);
      const s = { direct: summarize(timed.direct), hop: summarize(timed.hop), proxy: summarize(timed.proxy) };
      console.log(row(`${cli} direct`, s.direct));
      console.log(row(`${cli} plain hop`, s.hop));
      console.log(row(`${cli} egress proxy`, s.proxy));
      const added = { p50: s.proxy.median - s.direct.median, p90: s.proxy.p90 - s.direct.p90 };
      console.log(
        `${cli} CPU per call: direct ${cpuMs("direct").toFixed(3)} ms, plain hop ${cpuMs("hop").toFixed(3)}, egress proxy ${cpuMs("proxy").toFixed(3)}`,
      );
      verdicts.push(
        `${cli}: CPU added per call ${(cpuMs("proxy") - cpuMs("direct")).toFixed(3)} ms (a plain hop ${(cpuMs("hop") - cpuMs("direct")).toFixed(3)}); added p50 ${added.p50.toFixed(3)} ms, p90 ${added.p90.toFixed(3)} ms (a plain hop adds ${(s.hop.median - s.direct.median).toFixed(3)} / ${(s.hop.p90 - s.direct.p90).toFixed(3)}); target p50 <= ${TARGET_ADDED_P50_MS} ms: ${verdict(added.p50 <= TARGET_ADDED_P50_MS)}`,
      );
    }
    return verdicts;
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
    await hop.close();
    await proxy.close();
    await standIn.close();
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

/** The upstream thread: answers every POST with the large answer, STREAM_WRITE_BYTES a write, minding backpressure. */
async function serveUpstream(): Promise<void> {
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
  parentPort?.postMessage({ url: await listenOnLoopback(server) });
}

/** The proxies' thread: the egress proxy and the plain hop in front of the upstream; answers the proxy's meter when asked. */
async function serveProxies(upstream: string): Promise<void> {
  const proxy: EgressProxy = await createEgressProxy({ upstreams: { anthropic: upstream, openai: upstream }, logger: droppingLogger() });
  const hop = await startHop(upstream);
  const { token } = await proxy.register({ runId: "bench-stream", provider: "anthropic", credential: { kind: "api_key", value: CREDENTIAL } });
  parentPort?.on("message", (message: unknown) => {
    if (message === "meter") void proxy.meter("bench-stream").then((meter) => parentPort?.postMessage({ meter }));
  });
  parentPort?.postMessage({ proxy: proxy.url, hop: hop.url, token });
}

async function startThread<T>(data: Record<string, unknown>): Promise<{ readonly worker: Worker; readonly ready: T }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: data });
  worker.unref();
  const [ready] = (await once(worker, "message")) as [T];
  return { worker, ready };
}

/** Part 2: the large answer the three ways, taking turns; MB/s each. */
async function throughput(rounds: number): Promise<string[]> {
  const upstream = await startThread<{ url: string }>({ role: "upstream" });
  const proxies = await startThread<{ proxy: string; hop: string; token: string }>({ role: "proxies", upstream: upstream.ready.url });
  const agents = {
    direct: new Agent({ keepAlive: true, maxSockets: 1 }),
    hop: new Agent({ keepAlive: true, maxSockets: 1 }),
    proxy: new Agent({ keepAlive: true, maxSockets: 1 }),
  };
  const base: Record<Way, { url: string; key: string }> = {
    direct: { url: upstream.ready.url, key: "sk-any" },
    hop: { url: proxies.ready.hop, key: "sk-any" },
    proxy: { url: proxies.ready.proxy, key: proxies.ready.token },
  };
  try {
    const mbps: Record<Way, number[]> = { direct: [], hop: [], proxy: [] };
    for (let i = 0; i < rounds + 1; i++) {
      for (let k = 0; k < WAYS.length; k++) {
        const way = WAYS[(i + k) % WAYS.length] as Way;
        const { ms, bytes } = await call("anthropic", agents[way], base[way].url, base[way].key);
        if (bytes < STREAM_BYTES) throw new BenchFailure(`the large answer ${way} was ${bytes} bytes, not ${STREAM_BYTES} or more`);
        if (i >= 1) mbps[way].push(bytes / MiB / (ms / 1000));
      }
    }
    proxies.worker.postMessage("meter");
    const [{ meter }] = (await once(proxies.worker, "message")) as [{ meter: { turns: number; usage: { outputTokens: number } } | undefined }];
    if (meter?.turns !== rounds + 1 || meter.usage.outputTokens !== (rounds + 1) * STREAM_OUTPUT_TOKENS) {
      throw new BenchFailure(
        `the proxy metered ${meter?.turns} large answers and ${meter?.usage.outputTokens} output tokens, not ${rounds + 1} and ${(rounds + 1) * STREAM_OUTPUT_TOKENS}`,
      );
    }
    const s = { direct: summarize(mbps.direct), hop: summarize(mbps.hop), proxy: summarize(mbps.proxy) };
    console.log(`\nthroughput: a ${(STREAM_BYTES / MiB).toFixed(0)} MiB streamed answer, ${rounds} times each way (MB/s)`);
    console.log(`${"".padEnd(26)} ${"median".padStart(9)} ${"slowest".padStart(9)} ${"fastest".padStart(9)}`);
    for (const way of WAYS) {
      const label = way === "direct" ? "direct" : way === "hop" ? "plain hop" : "egress proxy";
      console.log(`${label.padEnd(26)} ${[s[way].median, s[way].min, Math.max(...mbps[way])].map((v) => v.toFixed(0).padStart(9)).join(" ")}`);
    }
    const ratio = s.proxy.median / s.direct.median;
    return [
      `throughput: egress proxy / direct ${ratio.toFixed(2)}x, target >= ${TARGET_THROUGHPUT_RATIO}x: ${verdict(ratio >= TARGET_THROUGHPUT_RATIO)}; egress proxy / plain hop ${(s.proxy.median / s.hop.median).toFixed(2)}x; plain hop / direct ${(s.hop.median / s.direct.median).toFixed(2)}x`,
    ];
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
    await upstream.worker.terminate();
    await proxies.worker.terminate();
  }
}

/**
 * Part 3: the stream masker alone, over the large answer in 64 KiB chunks, on this thread: MB per
 * second of this process's CPU time (steady on a busy machine) and of wall time.
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
    `\nstream masker alone (${rounds} passes): ${cpu.median.toFixed(0)} MB per CPU second at the median (slowest ${cpu.min.toFixed(0)}), ${wall.median.toFixed(0)} MB/s of wall time`,
  );
  return [];
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, 500, 100_000);
  const rounds = Math.max(5, Math.round(runs / 50));
  console.log(`egress proxy on loopback, Node ${process.version}, ${runs} calls and ${rounds} large answers each way`);
  const verdicts = [...(await latency(runs)), ...(await throughput(rounds)), ...(await masking(rounds))];
  console.log("");
  for (const line of verdicts) console.log(line);
  return 0;
}

if (isMainThread) runBench(main);
else if (workerData.role === "upstream") void serveUpstream();
else void serveProxies(String(workerData.upstream));
