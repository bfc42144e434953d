// A service that is less than it says, over real HTTP against `agentcage serve` as its own process
// and the real engine: a warm pool whose containers cannot run (an image with no shell) leaves it
// ready but degraded; a Run network range that a network of the engine's holds whole (the engine
// refuses every subnet of it) makes it not ready. Each is in /readyz in general words, in GET
// /v1/service with its reason and fix, in /metrics, in exactly one log line however often it
// repeats, and in `agentcage doctor --remote`, fix beside it.

import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnv, runCommand, startCommand, type Started } from "../../../test/support/command.js";
import { TEST_IMAGE } from "../../../test/support/engine.js";

const TOKEN = "service-degraded-test-token-0123456789";
const root = mkdtempSync(join(tmpdir(), "agentcage-degraded-"));
const suffix = randomBytes(3).toString("hex");
const NO_SHELL_IMAGE = `agentcage-test-no-shell:${suffix}`;
const started: Started[] = [];
let clashNetwork = "";

afterAll(async () => {
  for (const service of started) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill("SIGTERM");
    await service.finished;
  }
  if (clashNetwork !== "") spawnSync("docker", ["network", "rm", clashNetwork]);
  spawnSync("docker", ["image", "rm", "--force", NO_SHELL_IMAGE]);
  rmSync(root, { recursive: true, force: true });
}, 90_000);

/** `agentcage serve` with `args`, once it listens: its URL and what it logs. */
async function serveWith(name: string, args: readonly string[]): Promise<{ url: string; service: Started; runtimeDir: string }> {
  const runtimeDir = join(root, name);
  const service = startCommand(["serve", "--port", "0", "--runtime-dir", runtimeDir, ...args], commandEnv({ AGENTCAGE_TOKEN: TOKEN }));
  started.push(service);
  await service.stderrHas("listening on", 60_000);
  return { url: /listening on (http:\/\/[^\s;"]+)/.exec(service.stderrSoFar())?.[1] ?? "", service, runtimeDir };
}

async function call(url: string, path: string, token?: string): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return { status: response.status, text, json: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function until(check: () => Promise<boolean>, what: string, withinMs = 90_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The service's log lines (pino's JSON on stderr) that say a degradation began. */
function degradedLines(service: Started): Array<Record<string, unknown>> {
  return service
    .stderrSoFar()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line["msg"] === "degraded");
}

/** `agentcage doctor --remote url` with the service's token: its exit status and its lines. */
async function doctorOf(url: string, runtimeDir: string, env: Record<string, string> = {}): Promise<{ code: number | null; lines: string[] }> {
  const finished = await runCommand(["doctor", "--remote", url, "--runtime-dir", runtimeDir], commandEnv({ AGENTCAGE_TOKEN: TOKEN, ...env }));
  return { code: finished.code, lines: finished.stdout.split("\n") };
}

describe("a service whose warm pool cannot fill", () => {
  let url = "";
  let service: Started;
  let runtimeDir = "";

  beforeAll(async () => {
    // An image that holds one file and no shell: a pooled container of it cannot run its launcher.
    const context = join(root, "no-shell");
    execFileSync("mkdir", ["-p", context]);
    writeFileSync(join(context, "nothing"), "");
    const tar = execFileSync("tar", ["-C", context, "-cf", "-", "."]);
    const imported = spawnSync("docker", ["import", "-", NO_SHELL_IMAGE], { input: tar });
    expect(imported.status, imported.stderr.toString()).toBe(0);
    ({ url, service, runtimeDir } = await serveWith("pool", ["--image", NO_SHELL_IMAGE, "--pool", "1"]));
  }, 120_000);

  it("stays ready, says it is degraded in /readyz, and says why and what to do in GET /v1/service", async () => {
    await until(async () => ((await call(url, "/readyz")).json["degraded"] as unknown[] | undefined) !== undefined, "the pool's degradation in /readyz");
    const probe = await call(url, "/readyz");
    expect(probe.status).toBe(200);
    expect(probe.json).toEqual({
      ready: true,
      degraded: [{ kind: "pool", reason: "the warm pool cannot make its containers: Runs start cold", since: expect.any(String) }],
    });
    const state = await call(url, "/v1/service", TOKEN);
    expect(state.json["ready"]).toBe(true);
    expect(state.json["degraded"]).toEqual([
      {
        kind: "pool",
        reason: expect.stringMatching(/^the warm pool('s containers stopped before their claim| could not make a container) \d+ times in a row/),
        fix: expect.any(String),
        stopsRuns: false,
        since: expect.any(String),
      },
    ]);
  }, 120_000);

  it("counts it on /metrics, and logs it once however many more times the pool fails", async () => {
    const metrics = (await call(url, "/metrics", TOKEN)).text;
    expect(metrics).toMatch(/^agentcage_degraded\{kind="pool"\} 1$/m);
    expect(metrics).toMatch(/^agentcage_degradations_total\{kind="pool"\} 1$/m);
    expect(metrics).toMatch(/^agentcage_degraded\{kind="run-network-range"\} 0$/m);
    // Three more attempts after the one that made it degraded (the backoff grows: 4, 8, 16 s).
    const attempts = async () => {
      const pool = (await call(url, "/v1/pool", TOKEN)).json;
      return (pool["failures"] as number) + (pool["replaced"] as number);
    };
    const before = await attempts();
    await until(async () => (await attempts()) >= before + 2, "two more failed attempts of the pool", 120_000);
    expect(degradedLines(service)).toEqual([
      expect.objectContaining({ level: 40, degraded: "pool", reason: expect.stringContaining("warm pool"), fix: expect.any(String) }),
    ]);
  }, 150_000);

  it("is a warning of `agentcage doctor --remote`, with its fix", async () => {
    const { lines } = await doctorOf(url, runtimeDir);
    expect(lines.find((line) => line.includes("service pool"))).toMatch(
      /^warn {2}service pool {7}http:\/\/127\.0\.0\.1:\d+: the warm pool.* times in a row.*; fix: /,
    );
  }, 120_000);
});

describe("a service whose Run network range a network of the engine holds whole", () => {
  let url = "";
  let service: Started;
  let runtimeDir = "";
  let range = "";
  let networkId = "";

  beforeAll(async () => {
    // A /24 no network of the engine holds yet, taken whole by a network of this test's own.
    for (let tried = 0; networkId === "" && tried < 20; tried++) {
      const candidate = `10.${200 + Math.floor(Math.random() * 50)}.${Math.floor(Math.random() * 256)}.0/24`;
      const name = `agentcage-degraded-clash-${suffix}`;
      const made = spawnSync("docker", ["network", "create", "--subnet", candidate, "--label", `agentcage-test=${suffix}`, name], { encoding: "utf8" });
      if (made.status !== 0) continue;
      [range, clashNetwork, networkId] = [candidate, name, made.stdout.trim()];
    }
    expect(networkId).not.toBe("");
    ({ url, service, runtimeDir } = await serveWith("clash", ["--image", TEST_IMAGE, "--network-policy", "open", "--run-network-range", range, "--pool", "1"]));
  }, 120_000);

  it("is not ready: /readyz answers 503 saying the range clashes, in general words", async () => {
    await until(async () => (await call(url, "/readyz")).status === 503, "/readyz answering 503");
    const probe = await call(url, "/readyz");
    const words = "the Run networks' address range clashes with a network of the host: no Run that needs a network of its own can start";
    expect(probe.json["ready"]).toBe(false);
    expect(probe.json["reasons"]).toEqual([words]);
    expect(probe.json["degraded"]).toContainEqual({ kind: "run-network-range", reason: words, since: expect.any(String) });
    expect(probe.text).not.toContain(range.split("/")[0] as string);
  }, 120_000);

  it("names the range and the route into it, the engine's network, in GET /v1/service, /metrics and one log line", async () => {
    const degraded = (await call(url, "/v1/service", TOKEN)).json["degraded"] as Array<Record<string, unknown>>;
    const clash = degraded.find((one) => one["kind"] === "run-network-range");
    // Said at the start (the route holds the whole range), and again, with the subnets, once the pool's networks were refused.
    expect(clash).toMatchObject({
      reason: expect.stringContaining(`the Run networks' range ${range} `),
      fix: expect.stringContaining("--run-network-range"),
      stopsRuns: true,
    });
    expect(clash?.["reason"]).toContain(`this host's route to ${range} via br-${networkId.slice(0, 12)}, the engine's network ${networkId.slice(0, 12)}`);
    expect((await call(url, "/metrics", TOKEN)).text).toMatch(/^agentcage_degraded\{kind="run-network-range"\} 1$/m);
    // Once however often the engine refuses: the pool's containers keep trying, each refused 8 subnets in a row.
    await until(async () => ((await call(url, "/v1/pool", TOKEN)).json["failures"] as number) >= 3, "three failed pool containers");
    expect(degradedLines(service).filter((line) => line["degraded"] === "run-network-range")).toEqual([
      expect.objectContaining({ level: 40, reason: expect.stringContaining(`this host's route to ${range} via br-${networkId.slice(0, 12)}`) }),
    ]);
  }, 60_000);

  it("fails `agentcage doctor --remote`, which also finds the engine's network in the range among this host's routes", async () => {
    const { code, lines } = await doctorOf(url, runtimeDir, { AGENTCAGE_RUN_NETWORK_RANGE: range });
    expect(lines.find((line) => line.includes("service run-network-range"))).toMatch(
      new RegExp(`^FAIL {2}service run-network-range http://127\\.0\\.0\\.1:\\d+: .*the Run networks' range ${range.replaceAll(".", "\\.")} .*; fix: `),
    );
    expect(lines.find((line) => line.includes("run network range"))).toContain(`overlaps the route to ${range} via br-${networkId.slice(0, 12)}`);
    expect(code).toBe(1);
  }, 120_000);
});
