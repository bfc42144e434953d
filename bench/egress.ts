// Measures what a model call gains by going through the egress proxy: the same streamed call to
// the stand-in model (claude's /v1/messages, then codex's /v1/responses, whose body the proxy reads
// whole to check its tools), once straight and once through the proxy (token swap, path check,
// budget check, the answer metered on the side, one log line), on loopback, in turns so drift hits
// both. Prints median, p90 and min of each, the median added in ms and the ratio, against the
// target "under 2 ms added at the median". Measured, not asserted: a miss prints MISS.

import { Agent, request } from "node:http";
import { Writable } from "node:stream";
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { createEgressProxy } from "../src/egress/index.js";
import { startStandInModel } from "../test/stand-in/index.js";
import { BenchFailure, parseRuns, runBench, summarize, type Summary } from "./measure.js";

const TARGET_ADDED_MS = 2;
const WARM_UP_CALLS = 30;
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

/** One streamed call, timed from the request to the answer's last byte, over a keep-alive agent as a CLI holds. */
function call(cli: Cli, agent: Agent, base: string, key: string): Promise<number> {
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
          else resolve(performance.now() - started);
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(CALLS[cli].body);
  });
}

function row(label: string, s: Summary): string {
  return `${label.padEnd(22)} ${s.median.toFixed(3).padStart(8)} ${s.p90.toFixed(3).padStart(8)} ${s.min.toFixed(3).padStart(8)}`;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, 500, 100_000);
  const standIn = await startStandInModel({ scenario: "plain" });
  // The log lines are made, masked and serialized as in production, then dropped.
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const proxy = await createEgressProxy({ upstreams: { anthropic: standIn.url, openai: standIn.url }, logger: pino(sink) });
  const direct = new Agent({ keepAlive: true, maxSockets: 1 });
  const proxied = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    console.log(`egress proxy: ${runs} streamed calls each way per CLI on loopback, Node ${process.version}`);
    console.log(`${"".padEnd(22)} ${"median".padStart(8)} ${"p90".padStart(8)} ${"min".padStart(8)}   (ms)`);
    const verdicts: string[] = [];
    for (const cli of ["anthropic", "openai"] as const) {
      const runId = `bench-${cli}`;
      const { token } = await proxy.register({ runId, provider: cli, credential: { kind: "api_key", value: "sk-bench-0123456789abcdef0123456789" } });
      for (let i = 0; i < WARM_UP_CALLS; i++) {
        await call(cli, direct, standIn.url, "sk-any");
        await call(cli, proxied, proxy.url, token);
      }
      const straight: number[] = [];
      const through: number[] = [];
      for (let i = 0; i < runs; i++) {
        // Alternate which goes first, so neither always follows the other's garbage.
        if (i % 2 === 0) {
          straight.push(await call(cli, direct, standIn.url, "sk-any"));
          through.push(await call(cli, proxied, proxy.url, token));
        } else {
          through.push(await call(cli, proxied, proxy.url, token));
          straight.push(await call(cli, direct, standIn.url, "sk-any"));
        }
      }
      const meter = await proxy.meter(runId);
      if (meter?.turns !== WARM_UP_CALLS + runs) throw new BenchFailure(`the proxy metered ${meter?.turns} ${cli} model calls, not ${WARM_UP_CALLS + runs}`);
      const a = summarize(straight);
      const b = summarize(through);
      const added = b.median - a.median;
      console.log(row(`${cli} direct`, a));
      console.log(row(`${cli} through proxy`, b));
      verdicts.push(
        `${cli}: added at the median ${added.toFixed(3)} ms, ratio ${(b.median / a.median).toFixed(2)}x, target < ${TARGET_ADDED_MS} ms: ${added < TARGET_ADDED_MS ? "OK" : "MISS"}`,
      );
    }
    for (const verdict of verdicts) console.log(verdict);
    return 0;
  } finally {
    direct.destroy();
    proxied.destroy();
    await proxy.close();
    await standIn.close();
  }
}

runBench(main);
