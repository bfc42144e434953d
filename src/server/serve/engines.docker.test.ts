// The service over several engines (`--engine`): this host's, one daemon of the test's own in a
// network namespace of its own, and one that does not answer. /readyz is ready while one engine can
// take a Run and says why of each when none can, and lists one drained as degraded; /metrics shows
// each engine's gauges. Under the model policy, serve starts an egress proxy on each engine, and Runs
// over HTTP go behind them; one found gone is degraded until it runs again, in one log line each way;
// with --run-files engine as well, no proxy has a bind mount (each is reached through its engine).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_IMAGE, capturingLogger, docker } from "../../../test/support/engine.js";
import { extraEngine, loadTestImage, type ExtraEngine } from "../../../test/support/extra-engine.js";
import { serve } from "../index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-serve-engines-"));
const extras: ExtraEngine[] = [];

beforeAll(async () => {
  extras.push(extraEngine(root, "acs"));
  await Promise.all(extras.map((engine) => engine.start()));
  for (const engine of extras) loadTestImage(engine);
}, 120_000);

afterAll(async () => {
  const removed = await Promise.allSettled(extras.map((engine) => engine.remove()));
  rmSync(root, { recursive: true, force: true });
  for (const one of removed) if (one.status === "rejected") throw one.reason;
}, 120_000);

describe("the service over several engines", () => {
  it("is ready while one engine can take a Run, says why of each when none can, and shows each engine's gauges", async () => {
    const c = extras[0] as ExtraEngine;
    const gone = `unix://${join(root, "nothing.sock")},name=gone`;
    const one = await serve({
      runtimeDir: join(root, "service-one"),
      port: 0,
      image: TEST_IMAGE,
      engines: ["local,name=host", `${c.address},name=${c.name},slots=1`, gone],
      logger: capturingLogger().logger,
      environment: {},
    });
    try {
      const ready = await fetch(`${one.url}/readyz`);
      expect(ready.status).toBe(200);
      // Drained after its second failed ping: still ready, and degraded for it.
      let probe: { ready?: boolean; degraded?: unknown[] } = {};
      for (let i = 0; i < 300 && probe.degraded === undefined; i++) {
        probe = (await (await fetch(`${one.url}/readyz`)).json()) as typeof probe;
        if (probe.degraded === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(probe).toEqual({
        ready: true,
        degraded: [{ kind: "engine", reason: 'engine "gone": it stopped answering, and no Run goes there until it answers again', since: expect.any(String) }],
      });
      const token = readFileSync(one.tokenFile as string, "utf8").trim();
      const metrics = await (await fetch(`${one.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      expect(metrics).toContain('agentcage_engine_up{engine="host"} 1');
      expect(metrics).toContain(`agentcage_engine_up{engine="${c.name}"} 1`);
      expect(metrics).toContain('agentcage_engine_up{engine="gone"} 0');
      expect(metrics).toContain(`agentcage_engine_slots{engine="${c.name}"} 1`);
      expect(metrics).toContain('agentcage_degraded{kind="engine"} 1');
    } finally {
      await one.stop(5_000);
    }
    // None can: one does not answer, the other does not hold the image.
    const none = await serve({
      runtimeDir: join(root, "service-none"),
      port: 0,
      image: "agentcage-not-loaded:latest",
      engines: [gone, `${c.address},name=${c.name}`],
      logger: capturingLogger().logger,
      environment: {},
    });
    try {
      const answer = await fetch(`${none.url}/readyz`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({ ready: false, reasons: ['engine "gone": it does not answer', `engine "${c.name}": the agent image is not on it`] });
    } finally {
      await none.stop(5_000);
    }
  }, 60_000);

  it("under the model policy starts a proxy on each engine, and runs Runs over HTTP behind the proxy of the engine each is placed on", async () => {
    // This host's engine twice, under two names: each is an engine of the set with a proxy of its own.
    const proxies = () =>
      docker("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", `label=agentcage.pid=${process.pid}`)
        .split("\n")
        .filter((id) => id !== "");
    const earlier = new Set(proxies());
    const before = earlier.size;
    const startedAt = Date.now();
    const log = capturingLogger();
    const running = await serve({
      runtimeDir: join(root, "service-model"),
      port: 0,
      networkPolicy: "model",
      standIn: true,
      slots: 2,
      // And one that does not answer: it gets its proxy when it first takes a Run, and does not hold the start.
      engines: ["local,name=a,slots=1", "local,name=b,slots=1", `unix://${join(root, "nothing.sock")},name=gone`],
      logger: log.logger,
      environment: {},
    });
    console.info(`serve over two engines under model took ${Date.now() - startedAt} ms to start`);
    try {
      expect(proxies()).toHaveLength(before + 2);
      const token = readFileSync(running.tokenFile as string, "utf8").trim();
      const call = (path: string, init: RequestInit = {}) =>
        fetch(`${running.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
      const service = (await (await call("/v1/service")).json()) as { egress?: unknown };
      expect(service.egress).toMatchObject({ networkPolicy: "model", proxy: "started", answering: true });
      const ids = await Promise.all(
        [0, 1].map(async () => {
          const answer = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?" }) });
          return ((await answer.json()) as { id: string }).id;
        }),
      );
      for (const id of ids) {
        const events = await (await call(`/v1/runs/${id}/events`)).text();
        expect(events).toContain('"type":"metered"');
        const final = (await (await call(`/v1/runs/${id}`)).json()) as unknown;
        expect(final).toMatchObject({
          state: "completed",
          outcome: { network: { policy: "model", meter: { turns: 1 } }, result: { text: "The capital of France is Paris." } },
        });
      }
      // Both proxies gone under the service (removed by hand): the next Run's engine gets its proxy again, and the Run goes on.
      for (const id of proxies().filter((one) => !earlier.has(one))) docker("rm", "--force", id);
      const answer = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?" }) });
      const { id } = (await answer.json()) as { id: string };
      await (await call(`/v1/runs/${id}/events`)).text();
      expect(await (await call(`/v1/runs/${id}`)).json()).toMatchObject({ state: "completed", outcome: { network: { meter: { turns: 1 } } } });
      // Its engine's proxy was found gone and runs again: degraded meanwhile, one line each way, counted.
      const lines = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line["degraded"] === "egress-proxy");
      const placed = lines[0]?.["subject"];
      expect(lines.map((line) => [line["msg"], line["subject"]])).toEqual([
        ["degraded", placed],
        ["no longer degraded", placed],
      ]);
      const metrics = await (await call("/metrics")).text();
      expect(metrics).toContain('agentcage_degraded{kind="egress-proxy"} 0');
      expect(metrics).toContain('agentcage_degradations_total{kind="egress-proxy"} 1');
    } finally {
      await running.stop(5_000);
    }
    expect(proxies()).toHaveLength(before);
  }, 180_000);

  it("under the model policy with runFiles engine, starts each engine's proxy with no bind mount, and a Run over HTTP is metered behind it", async () => {
    const proxies = () =>
      docker("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", `label=agentcage.pid=${process.pid}`)
        .split("\n")
        .filter((id) => id !== "");
    const earlier = new Set(proxies());
    const running = await serve({
      runtimeDir: join(root, "service-remote"),
      port: 0,
      networkPolicy: "model",
      standIn: true,
      runFiles: "engine",
      slots: 2,
      engines: ["local,name=a,slots=1", "local,name=b,slots=1"],
      logger: capturingLogger().logger,
      environment: {},
    });
    try {
      const started = proxies().filter((id) => !earlier.has(id));
      expect(started).toHaveLength(2);
      for (const id of started) expect(docker("inspect", "--format", "{{json .Mounts}}", id)).toBe("[]");
      const token = readFileSync(running.tokenFile as string, "utf8").trim();
      const call = (path: string, init: RequestInit = {}) =>
        fetch(`${running.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
      const answer = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?" }) });
      const { id } = (await answer.json()) as { id: string };
      await (await call(`/v1/runs/${id}/events`)).text();
      expect(await (await call(`/v1/runs/${id}`)).json()).toMatchObject({
        state: "completed",
        outcome: { network: { policy: "model", meter: { turns: 1 } }, result: { text: "The capital of France is Paris." } },
      });
    } finally {
      await running.stop(5_000);
    }
    expect(proxies().filter((id) => !earlier.has(id))).toEqual([]);
  }, 180_000);
});
