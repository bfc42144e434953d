// Runs of the real claude CLI under networkPolicy "model" over two engines: this host's and a daemon
// of the test's own in a network namespace of its own, each with an egress proxy (the stand-in model
// behind it) that the assembly started. A Run's token is made on the proxy of the engine it was
// placed on, works there alone, and dies with the Run; its meter is that proxy's. One engine killed
// mid-Run leaves the other's Runs alone; back, it gets a proxy again; allowlist goes the same way;
// nothing is left after close.

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerEngine, engineAt, parseEngineAddress } from "../engine/index.js";
import { createEngineSet, type EngineSet } from "../runtime/index.js";
import { DEFAULT_EGRESS_IMAGE } from "../gateway/index.js";
import { DEFAULT_EGRESS_PORT } from "../egress/index.js";
import { capturingLogger, docker } from "../../test/support/engine.js";
import { extraEngine, loadImage, type ExtraEngine } from "../../test/support/extra-engine.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";
import { assembleRunners, type AgentOutcome, type RunnerAssembly } from "./index.js";
import type { RunnerAssemblyOptions } from "./assembly.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-engines-model-"));
const owner = `engines-model-${process.pid}`;
/** The proxies' own way out, on each engine: the test's daemon has no "bridge" (it runs with --bridge=none). */
const outbound = `agentcage-engines-model-out-${process.pid}`;
const PARIS = "The capital of France is Paris.";
const HANG = "Wait for the model. [stand-in:hang]";
let extra: ExtraEngine;
let set: EngineSet | undefined;
let assembly: RunnerAssembly | undefined;
const log = capturingLogger();

beforeAll(async () => {
  extra = extraEngine(root, "acm", "overlay2");
  await extra.start();
  const loading = Date.now();
  for (const image of [AGENT_IMAGE, DEFAULT_EGRESS_IMAGE]) loadImage(extra, image);
  console.info(`loading the agent's and the proxy's images on the test's engine took ${Date.now() - loading} ms`);
  for (const run of [docker, extra.docker]) run("network", "create", "--label", `${owner}=outbound`, outbound);
}, 600_000);

afterAll(async () => {
  await assembly?.close();
  set?.close();
  for (const run of [docker, extra.docker]) {
    try {
      run("network", "rm", outbound);
    } catch {
      // the engine is gone, or it never was made
    }
  }
  const removed = await extra?.remove().then(
    () => undefined,
    (error: unknown) => error,
  );
  rmSync(root, { recursive: true, force: true });
  if (removed !== undefined) throw removed;
}, 600_000);

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The `docker` command of the engine named: this host's ("host"), or the test's own. */
function dockerOn(engine: string): (...args: string[]) => string {
  return engine === "host" ? docker : extra.docker;
}

/** What carries the label on an engine: containers, networks, volumes. */
function leftOn(run: (...args: string[]) => string, label: string): string[] {
  const filter = ["--filter", `label=${label}`];
  return [
    ...run("ps", "--all", "--quiet", ...filter).split("\n"),
    ...run("network", "ls", "--quiet", ...filter).split("\n"),
    ...run("volume", "ls", "--quiet", ...filter).split("\n"),
  ].filter((line) => line !== "");
}

/** The engine each Run was placed on, by its id, as the runtime logged it. */
function placements(): Map<string, string> {
  const placed = log.lines
    .map((line) => JSON.parse(line) as { msg: string; runId?: string; engine?: string })
    .filter((line) => line.msg === "the Run is placed on an engine");
  return new Map(placed.map((line) => [line.runId as string, line.engine as string]));
}

/** Runs a bash script inside a live container of an engine, as its own user, `input` on stdin. */
function inside(engine: string, container: string, script: string, input = ""): Promise<string> {
  const host = engine === "host" ? [] : ["-H", extra.address];
  return new Promise((resolve, reject) => {
    const child = spawn("docker", [...host, "exec", "-i", container, "bash", "-c", script], { stdio: ["pipe", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.on("error", reject);
    child.on("close", () => resolve(stdout.trim()));
    child.stdin.end(input);
  });
}

/** The one running agent container of this test on an engine that `seen` does not hold. */
async function liveAgent(engine: string, seen: Set<string>): Promise<string> {
  let found = "";
  await until(
    `an agent container running on ${engine}`,
    () => {
      const ids = dockerOn(engine)("ps", "--quiet", "--filter", `label=agentcage.owner=${owner}`, "--filter", "status=running")
        .split("\n")
        .filter((id) => id !== "" && !seen.has(id));
      found = ids.length === 1 ? (ids[0] as string) : "";
      return found !== "";
    },
    60_000,
  );
  seen.add(found);
  return found;
}

/** The token claude holds in an agent container. */
function tokenIn(engine: string, agent: string): Promise<string> {
  return inside(engine, agent, "for p in /proc/[0-9]*; do tr '\\0' '\\n' <$p/environ 2>/dev/null | sed -n 's/^ANTHROPIC_API_KEY=//p'; done | head -1");
}

/** What the proxy the agent reaches (its engine's) answers a model call made with `token`: its status line. */
function probe(engine: string, agent: string, token: string): Promise<string> {
  const script = `exec 3<>/dev/tcp/egress/${DEFAULT_EGRESS_PORT}; printf 'POST /v1/messages/count_tokens HTTP/1.1\\r\\nHost: egress\\r\\nx-api-key: %s\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\n{}' "$(cat)" >&3; timeout 5 head -1 <&3`;
  return inside(engine, agent, script, token);
}

/** Two hanging Runs, one on each engine (one slot each), their agents and tokens; `stop` cancels both and answers their Outcomes. */
async function hangingOnBoth(seen: Set<string>) {
  const runner = (assembly as RunnerAssembly).runner();
  const controller = new AbortController();
  const runs = [0, 1].map(() => runner.run({ cli: "claude", timeoutSeconds: 120 }, HANG, { signal: controller.signal }));
  const agents = { host: await liveAgent("host", seen), [extra.name]: await liveAgent(extra.name, seen) };
  const tokens = { host: await tokenIn("host", agents.host), [extra.name]: await tokenIn(extra.name, agents[extra.name] as string) };
  return {
    agents: agents as Record<string, string>,
    tokens: tokens as Record<string, string>,
    stop: async (): Promise<AgentOutcome[]> => {
      controller.abort();
      return Promise.all(runs);
    },
  };
}

describe('networkPolicy "model" over two engines, a proxy on each', () => {
  it("runs claude on both, each Run metered by its own engine's proxy, its token good there alone and dead after it", async () => {
    set = createEngineSet([
      { name: "host", engine: createDockerEngine(), maxConcurrentRuns: 1 },
      { name: extra.name, engine: engineAt(parseEngineAddress(extra.address, "--engine")), maxConcurrentRuns: 1 },
    ]);
    mkdirSync(join(root, "runs"));
    // For the measure: the same assembly over this host's engine alone (one proxy) and over both, in turns.
    const assemble = async (
      engines?: EngineSet,
      policy: Pick<RunnerAssemblyOptions, "networkPolicy" | "allowlist"> = { networkPolicy: "model" },
    ): Promise<{ ms: number; made: RunnerAssembly }> => {
      const at = Date.now();
      const made = await assembleRunners({
        runner: { image: AGENT_IMAGE, staging: { runtimeDir: join(root, "runs") }, owner, logger: log.logger, ...(engines === undefined ? {} : { engines }) },
        ...policy,
        standIn: true,
        egressNetworks: [outbound],
        logger: log.logger,
      });
      return { ms: Date.now() - at, made };
    };
    const took: Record<"one" | "two", number[]> = { one: [], two: [] };
    for (let round = 0; round < 3; round++) {
      for (const [kind, engines] of [
        ["one", undefined],
        ["two", set],
      ] as const) {
        const { ms, made } = await assemble(engines);
        took[kind].push(ms);
        await made.close();
      }
    }
    console.info(`assembling the runners (model, the stand-in) took, in ms: over one engine ${took.one.join(", ")}; over two ${took.two.join(", ")}`);
    assembly = (await assemble(set)).made;
    const proxies = await assembly.gateways?.started();
    expect(proxies?.map((p) => p.engine).sort()).toEqual(["acm", "host"].sort());
    for (const { engine, gateway } of proxies ?? []) expect(dockerOn(engine)("ps", "--quiet", "--filter", `name=${gateway.container}`)).not.toBe("");

    // Four Runs, two at a time: each engine takes one, and each is metered by the proxy it reached.
    const runner = assembly.runner();
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => runner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?")));
    const placed = placements();
    for (const outcome of outcomes) {
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, result: { text: PARIS }, network: { policy: "model", meter: { turns: 1 } } });
      expect(outcome.network?.meter?.usage.outputTokens ?? 0).toBeGreaterThan(0);
    }
    expect(outcomes.map((o) => placed.get(o.runId)).sort()).toEqual(["acm", "acm", "host", "host"]);

    // A Run's token: good on its own engine's proxy, unknown to the other's, dead once the Run is.
    const seen = new Set<string>();
    const first = await hangingOnBoth(seen);
    expect(first.tokens.host).toMatch(/^agentcage-run-/);
    expect(first.tokens.acm).toMatch(/^agentcage-run-/);
    expect(await probe("host", first.agents.host as string, first.tokens.host as string)).toMatch(/^HTTP\/1\.1 200/);
    expect(await probe("acm", first.agents.acm as string, first.tokens.acm as string)).toMatch(/^HTTP\/1\.1 200/);
    expect(await probe("host", first.agents.host as string, first.tokens.acm as string)).toMatch(/^HTTP\/1\.1 401/);
    expect(await probe("acm", first.agents.acm as string, first.tokens.host as string)).toMatch(/^HTTP\/1\.1 401/);
    for (const outcome of await first.stop()) expect(outcome).toMatchObject({ reason: "cancelled", network: { policy: "model" } });
    const second = await hangingOnBoth(seen);
    for (const engine of ["host", "acm"]) {
      expect(await probe(engine, second.agents[engine] as string, first.tokens[engine] as string)).toMatch(/^HTTP\/1\.1 401/);
      expect(await probe(engine, second.agents[engine] as string, second.tokens[engine] as string)).toMatch(/^HTTP\/1\.1 200/);
    }

    // The test's engine killed mid-Run: its Run ends unavailable, the host's goes on, its token still good.
    await extra.kill();
    await until("the killed engine drained", () => set?.status().find((s) => s.name === "acm")?.drained === true, 30_000);
    expect(await probe("host", second.agents.host as string, second.tokens.host as string)).toMatch(/^HTTP\/1\.1 200/);
    const [hostEnd, killedEnd] = await second.stop();
    const byEngine = new Map([hostEnd, killedEnd].map((o) => [placements().get(o?.runId as string), o]));
    expect(byEngine.get("host")).toMatchObject({ reason: "cancelled" });
    expect(byEngine.get("acm")).toMatchObject({ reason: "unavailable" });
    expect(byEngine.get("acm")?.error).toContain('the engine "acm" stopped answering');
    const meanwhile = await runner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?");
    expect(meanwhile).toMatchObject({ ok: true, network: { meter: { turns: 1 } } });
    expect(placements().get(meanwhile.runId)).toBe("host");

    // Back: the engine's restart removed its proxy; it is started again, and a Run placed there is metered by it.
    await extra.start();
    await until("the engine back", () => set?.status().find((s) => s.name === "acm")?.answers === true, 30_000);
    const third = await hangingOnBoth(seen);
    expect(await probe("acm", third.agents.acm as string, third.tokens.acm as string)).toMatch(/^HTTP\/1\.1 200/);
    await third.stop();
    const again = await Promise.all([0, 1].map(() => runner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?")));
    for (const outcome of again) expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, network: { meter: { turns: 1 } } });
    expect(again.map((o) => placements().get(o.runId)).sort()).toEqual(["acm", "host"]);

    // allowlist: the same proxy per engine, each Run's tunnels authorized by its token there.
    await assembly.close();
    assembly = (await assemble(set, { networkPolicy: "allowlist", allowlist: ["api.example.com:443"] })).made;
    const allowRunner = assembly.runner();
    const allowed = await Promise.all([0, 1].map(() => allowRunner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?")));
    for (const outcome of allowed) {
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, result: { text: PARIS }, network: { policy: "allowlist", meter: { turns: 1 } } });
    }
    expect(allowed.map((o) => placements().get(o.runId)).sort()).toEqual(["acm", "host"]);

    // Closed: no proxy, and nothing of any Run, on either engine.
    await assembly.close();
    assembly = undefined;
    await until("nothing of the Runs left on the test's engine", () => leftOn(extra.docker, `agentcage.owner=${owner}`).length === 0, 30_000);
    for (const run of [docker, extra.docker]) {
      expect(leftOn(run, `agentcage.owner=${owner}`)).toEqual([]);
      expect(run("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", `label=agentcage.pid=${process.pid}`)).toBe("");
    }
  }, 600_000);
});
