// Runs of the real claude under networkPolicy "model" over two engines with runFiles "engine": this
// host's, and a daemon of the test's own reached as a remote one is (tcp:// with TLS client
// certificates, over a veth link into its network namespace). Nothing of this host's disk is bound
// into any container: not the Runs' (their files go through the engine), and not the proxies' (each
// is reached through its engine: its secret on its stdin, its control requests execs).

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineSetOf, type EngineSet } from "../runtime/index.js";
import { DEFAULT_EGRESS_IMAGE } from "../gateway/index.js";
import { capturingLogger, docker } from "../../test/support/engine.js";
import { loadImage } from "../../test/support/extra-engine.js";
import { tlsEngine, type TlsEngine } from "../../test/support/tls-engine.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";
import { assembleRunners, type RunnerAssembly } from "./index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-engines-remote-"));
const owner = `engines-remote-${process.pid}`;
/** The proxies' own way out on each engine: the test's daemon has no "bridge" (it runs with --bridge=none). */
const outbound = `agentcage-engines-remote-out-${process.pid}`;
const PARIS = "The capital of France is Paris.";
let extra: TlsEngine;
let set: EngineSet | undefined;
let assembly: RunnerAssembly | undefined;
const log = capturingLogger();

beforeAll(async () => {
  extra = tlsEngine(root, "acr", 9, "overlay2");
  await extra.start();
  for (const image of [AGENT_IMAGE, DEFAULT_EGRESS_IMAGE]) loadImage(extra, image);
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

/** The `docker` command of the engine named: this host's ("host"), or the test's own. */
function dockerOn(engine: string): (...args: string[]) => string {
  return engine === "host" ? docker : extra.docker;
}

/** The engine each Run was placed on, by its id, as the runtime logged it. */
function placements(): Map<string, string> {
  const placed = log.lines
    .map((line) => JSON.parse(line) as { msg: string; runId?: string; engine?: string })
    .filter((line) => line.msg === "the Run is placed on an engine");
  return new Map(placed.map((line) => [line.runId as string, line.engine as string]));
}

describe('networkPolicy "model" over two engines with runFiles "engine"', () => {
  it("runs claude on each engine, one over TCP with TLS, through its own proxy, and no container of either binds this host's disk", async () => {
    // As `serve --engine local,name=host --engine tcp://...,name=acr,certs=DIR` takes them.
    set = engineSetOf(["local,name=host,slots=1", `${extra.tcpAddress},name=acr,slots=1,certs=${extra.certs}`], "--engine");
    mkdirSync(join(root, "runs"));
    assembly = await assembleRunners({
      runner: { image: AGENT_IMAGE, staging: { runtimeDir: join(root, "runs") }, owner, logger: log.logger, engines: set, runFiles: "engine" },
      networkPolicy: "model",
      standIn: true,
      egressNetworks: [outbound],
      logger: log.logger,
    });
    const proxies = (await assembly.gateways?.started()) ?? [];
    expect(proxies.map((p) => p.engine).sort()).toEqual(["acr", "host"]);
    for (const { engine, gateway } of proxies) {
      const [inspected] = JSON.parse(dockerOn(engine)("inspect", gateway.container)) as Array<{ Mounts: unknown[]; Config: { Env: string[] } }>;
      expect(inspected?.Mounts, `the proxy on ${engine}`).toEqual([]);
      expect(inspected?.Config.Env).toContain("AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN=1");
      expect(inspected?.Config.Env.some((entry) => entry.startsWith("AGENTCAGE_EGRESS_CONTROL_SECRET_FILE="))).toBe(false);
    }
    // No control directory of a proxy in the Staging Directory: nothing there for an engine to see.
    expect(
      docker(
        "run",
        "--rm",
        "--volume",
        `${join(root, "runs")}:/staging:ro`,
        "--entrypoint",
        "sh",
        AGENT_IMAGE,
        "-c",
        "ls -A /staging | grep '^.egress-' || true",
      ),
    ).toBe("");

    // Two Runs at once, one slot on each engine: each is placed on its own, and metered by that engine's proxy.
    const runner = assembly.runner();
    const outcomes = await Promise.all([0, 1].map(() => runner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?")));
    for (const outcome of outcomes) {
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, result: { text: PARIS }, network: { policy: "model", meter: { turns: 1 } } });
    }
    expect(outcomes.map((o) => placements().get(o.runId)).sort()).toEqual(["acr", "host"]);

    // Closed: no proxy, and nothing of any Run, on either engine.
    await assembly.close();
    assembly = undefined;
    for (const run of [docker, extra.docker]) {
      expect(run("ps", "--all", "--quiet", "--filter", `label=agentcage.owner=${owner}`)).toBe("");
      expect(run("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", `label=agentcage.pid=${process.pid}`)).toBe("");
    }
  }, 600_000);
});
