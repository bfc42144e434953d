// Measures the service against what a user would otherwise do: (1) the added latency of a trivial
// claude Run through `agentcage serve` (POST, then its event stream to the end event) against the
// same Run through createAgentRunner directly, interleaved; (2) how many GET /v1/runs/:id requests
// a second it answers on loopback, 16 in flight. Measured, not asserted: it prints the figures.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createAgentRunner } from "../src/index.js";
import { serve } from "../src/server/index.js";
import { AGENT_IMAGE, startStandInModel } from "../src/testing/index.js";
import { BenchFailure, parseRuns, runBench, summarize } from "./measure.js";

const PROMPT = "What is the capital of France? Answer in one sentence.";
const KEY = "sk-bench-service-key";
const READS = 4000;
const IN_FLIGHT = 16;

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, 10, 500);
  const silent = pino({ level: "silent" });
  const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-bench-service-"));
  const running = await serve({ runtimeDir, port: 0, standIn: true, slots: 2, logger: silent, environment: {} });
  const token = readFileSync(running.tokenFile as string, "utf8").trim();
  const standIn = await startStandInModel("plain", { logger: silent });
  const direct = createAgentRunner({
    image: AGENT_IMAGE,
    networks: [standIn.network],
    environment: { ANTHROPIC_API_KEY: KEY },
    anthropicBaseUrl: standIn.baseUrl,
    logger: silent,
  });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const viaService = async (): Promise<number> => {
    const started = performance.now();
    const posted = (await (
      await fetch(`${running.url}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ cli: "claude", prompt: PROMPT }) })
    ).json()) as { id: string };
    const events = await fetch(`${running.url}/v1/runs/${posted.id}/events`, { headers });
    const text = await events.text(); // the stream closes after the end event
    if (!text.includes('"reason":"completed"')) throw new BenchFailure(`a Run through the service did not complete: ${text.slice(-500)}`);
    return performance.now() - started;
  };
  const viaLibrary = async (): Promise<number> => {
    const started = performance.now();
    const outcome = await direct.run({ cli: "claude" }, PROMPT);
    if (!outcome.ok) throw new BenchFailure(`a Run through the library ended ${outcome.reason}: ${outcome.error ?? ""}`);
    return performance.now() - started;
  };
  try {
    await viaService();
    await viaLibrary(); // warm-up, not counted
    const service: number[] = [];
    const library: number[] = [];
    for (let i = 0; i < runs; i++) {
      service.push(await viaService());
      library.push(await viaLibrary());
    }
    const s = summarize(service);
    const l = summarize(library);
    console.log(
      `trivial claude Run, ${runs} each: through the service median ${s.median.toFixed(1)} ms (p90 ${s.p90.toFixed(1)}), through the library median ${l.median.toFixed(1)} ms (p90 ${l.p90.toFixed(1)})`,
    );
    console.log(`added by the service: ${(s.median - l.median).toFixed(1)} ms, ratio ${(s.median / l.median).toFixed(2)}`);

    const posted = (await (
      await fetch(`${running.url}/v1/runs`, { method: "POST", headers, body: JSON.stringify({ cli: "claude", prompt: PROMPT }) })
    ).json()) as { id: string };
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < READS) {
          next += 1;
          const response = await fetch(`${running.url}/v1/runs/${posted.id}`, { headers });
          if (response.status !== 200) throw new BenchFailure(`GET /v1/runs/:id answered ${response.status}`);
          await response.arrayBuffer();
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`GET /v1/runs/:id: ${READS} requests, ${IN_FLIGHT} in flight: ${(READS / seconds).toFixed(0)} requests per second`);
    console.log(`service memory after: rss ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB (the bench and the service share this process)`);
    return 0;
  } finally {
    await running.stop(5_000);
    await standIn.stop();
    rmSync(runtimeDir, { recursive: true, force: true });
  }
}

runBench(main);
