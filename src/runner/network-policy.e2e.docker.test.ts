// The network policies with the real engine and the real claude and codex CLIs. The "internet" is
// a network of the test's own holding the stand-in model, which only the egress proxy joins; the
// proxy runs as its own container (startEgressGateway) and holds the real key. Under `model`, from
// inside a live agent container (docker exec, as the agent's user), the only thing that answers is
// the proxy; the real key is nowhere in it, though the per-Run token (the positive control) is.

import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, startEgressGateway, type AgentEvent, type AgentOutcome, type AgentRunner, type EgressGateway } from "../index.js";
import { ANTHROPIC_USAGE, loopText, OPENAI_USAGE, PLAIN_ANSWER } from "../../test/stand-in/index.js";
import { AGENT_IMAGE, startStandInModel, type RunningStandIn } from "../../test/support/stand-in-container.js";

const sh = promisify(execFile);
const OWNER = `agentcage-policy-e2e-${randomBytes(3).toString("hex")}`;
const CLAUDE_KEY = `sk-ant-api03-policy-${randomBytes(16).toString("hex")}`;
const OPENAI_KEY = `sk-proj-policy-${randomBytes(16).toString("hex")}`;
const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

let upstreamNetwork = "";
let standIn: RunningStandIn;
let gateway: EgressGateway;
let controlDir = "";
let hostService: Server;
let hostPort = 0;
let model: AgentRunner;

async function docker(...args: string[]): Promise<string> {
  return (await sh("docker", args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

/** The address a container has on a network. */
async function addressOn(container: string, network: string): Promise<string> {
  return docker("inspect", "-f", `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`, container);
}

/** Runs a bash script inside a live container as its own user, `input` on stdin. */
function inside(container: string, script: string, input = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", ["exec", "-i", container, "bash", "-c", script], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Whether a TCP connection from inside the container to host:port opens within 3 s. */
async function reaches(container: string, host: string, port: number): Promise<boolean> {
  const result = await inside(container, `timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null && echo open || echo closed`);
  return result.stdout.trim() === "open";
}

/**
 * Whether a name resolves in the container within 3 s (RES_OPTIONS bounds glibc's resolver, whose
 * own 5 s and two tries per query made one probe of a name the Run's network cannot look up take
 * 20 s): the bound every probe here has, where a resolver that can answer does so in milliseconds.
 */
async function resolves(container: string, name: string): Promise<boolean> {
  const result = await inside(container, `RES_OPTIONS='timeout:3 attempts:1' getent hosts ${name} >/dev/null && echo resolves || echo no`);
  return result.stdout.trim() === "resolves";
}

/** Agent containers an earlier test probed: never taken for a later Run's, even while they go. */
const probed = new Set<string>();

/** The one new agent container of this test's owner, once it runs. */
async function liveAgentContainer(): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ids = (await docker("ps", "-q", "--filter", `label=agentcage.owner=${OWNER}`, "--filter", "status=running"))
      .split("\n")
      .filter((id) => id !== "" && !probed.has(id));
    if (ids.length === 1) {
      probed.add(ids[0] as string);
      return ids[0] as string;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("no agent container came up");
}

async function standInRequests(): Promise<Awaited<ReturnType<RunningStandIn["requests"]>>> {
  return standIn.requests();
}

beforeAll(async () => {
  upstreamNetwork = `agentcage-e2e-upstream-${randomBytes(3).toString("hex")}`;
  await docker("network", "create", "--label", `${OWNER}=upstream`, upstreamNetwork);
  standIn = await startStandInModel("plain", { networks: [upstreamNetwork] });
  controlDir = await mkdtemp(join(tmpdir(), "agentcage-policy-e2e-"));
  gateway = await startEgressGateway({
    runtimeDir: controlDir,
    networks: [upstreamNetwork],
    upstreams: { anthropic: standIn.networkUrl as string, openai: standIn.networkUrl as string },
  });
  // A service of the host's, listening on every address: what a confined agent must not reach.
  hostService = createServer((socket) => socket.end("host service\n"));
  await new Promise<void>((resolve) => hostService.listen(0, "0.0.0.0", resolve));
  hostPort = (hostService.address() as { port: number }).port;
  model = runnerWith("model");
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await standIn?.stop();
  hostService?.close();
  if (upstreamNetwork !== "") await docker("network", "rm", upstreamNetwork).catch(() => undefined);
  if (controlDir !== "") await rm(controlDir, { recursive: true, force: true });
  // Nothing of this test is left: no container, no network.
  expect(await docker("ps", "-aq", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
  expect(await docker("network", "ls", "-q", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
});

function runnerWith(policy: "model" | "allowlist", allowlist?: readonly string[]): AgentRunner {
  return createAgentRunner({
    image: AGENT_IMAGE,
    apiRetries: 0,
    owner: OWNER,
    environment: { ANTHROPIC_API_KEY: CLAUDE_KEY, OPENAI_API_KEY: OPENAI_KEY },
    networkPolicy: policy,
    egress: gateway,
    ...(allowlist === undefined ? {} : { allowlist }),
  });
}

describe('under networkPolicy "model"', () => {
  it("claude completes through the proxy, the stand-in gets the real key, and the proxy's meter equals the stand-in's count", async () => {
    const before = (await standInRequests()).length;
    const events: AgentEvent[] = [];
    const outcome = await model.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?", { onEvent: (e) => events.push(e) });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, reason: "completed", result: { text: PLAIN_ANSWER }, network: { policy: "model" } });
    const calls = (await standInRequests()).slice(before).filter((r) => r.path === "/v1/messages");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(new Set(calls.map((r) => r.credentialSha256))).toEqual(new Set([sha256(CLAUDE_KEY)]));
    const meter = outcome.network?.meter;
    expect(meter).toMatchObject({ turns: calls.length, refused: 0 });
    expect(meter?.usage).toEqual({
      inputTokens: ANTHROPIC_USAGE.input_tokens * calls.length,
      outputTokens: ANTHROPIC_USAGE.output_tokens * calls.length,
      cacheReadTokens: ANTHROPIC_USAGE.cache_read_input_tokens * calls.length,
      cacheWriteTokens: ANTHROPIC_USAGE.cache_creation_input_tokens * calls.length,
    });
    expect(JSON.stringify(outcome)).not.toContain(CLAUDE_KEY);
  }, 120_000);

  it("codex completes through the proxy with the real key upstream, metered as the stand-in counts", async () => {
    const before = (await standInRequests()).length;
    const outcome = await model.run({ cli: "codex", timeoutSeconds: 120 }, "What is the capital of France?");
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, result: { text: PLAIN_ANSWER }, network: { policy: "model" } });
    const calls = (await standInRequests()).slice(before).filter((r) => r.path === "/v1/responses");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(new Set(calls.map((r) => r.credentialSha256))).toEqual(new Set([sha256(OPENAI_KEY)]));
    expect(outcome.network?.meter?.usage).toEqual({
      inputTokens: (OPENAI_USAGE.input_tokens - OPENAI_USAGE.cached_tokens) * calls.length,
      outputTokens: OPENAI_USAGE.output_tokens * calls.length,
      cacheReadTokens: OPENAI_USAGE.cached_tokens * calls.length,
      cacheWriteTokens: 0,
    });
  }, 120_000);

  it("inside a live agent container only the proxy answers, the real key is nowhere, and its token dies with the Run", async () => {
    const controller = new AbortController();
    const running = model.run({ cli: "claude", timeoutSeconds: 120 }, "Wait for the model. [stand-in:hang]", { signal: controller.signal });
    let outcome: AgentOutcome | undefined;
    try {
      const agent = await liveAgentContainer();
      // The proxy answers, by its alias.
      expect(await reaches(agent, "egress", gateway.port)).toBe(true);
      // Nothing else: the host's service (on every address of the host), the engine, the cloud
      // metadata address, the proxy's and the stand-in's addresses on the egress network.
      const bridgeGateway = await docker("network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", "bridge");
      const runNetwork = (await docker("inspect", "-f", "{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}", agent)).trim();
      expect(runNetwork).toMatch(/^agentcage-net-[0-9a-f]{16}$/);
      const runGateway = await docker("network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", runNetwork);
      const unreachable: Array<[string, number]> = [
        [bridgeGateway, hostPort],
        [runGateway, hostPort],
        [bridgeGateway, 2375],
        ["169.254.169.254", 80],
        [await addressOn(gateway.container, upstreamNetwork), gateway.port],
        [await addressOn(standIn.name, upstreamNetwork), 8080],
      ];
      // A name outside does not resolve, looked up while the addresses are tried; the proxy's alias
      // does (the probe can say a name resolves).
      const outside = resolves(agent, "api.anthropic.com");
      const reached = await Promise.all(unreachable.map(async ([host, port]) => [`${host}:${port}`, await reaches(agent, host, port)] as const));
      expect(reached.filter(([, open]) => open)).toEqual([]);
      expect((await inside(agent, "test -S /var/run/docker.sock && echo socket || echo none")).stdout.trim()).toBe("none");
      expect(await outside).toBe(false);
      expect(await resolves(agent, "egress")).toBe(true);

      // No trace of the real key in the environment, command lines or files of any process; the
      // token (what the agent holds) is found by the same search, so the search can find one.
      const search = "grep -rlsF -f /dev/stdin /proc/[0-9]*/environ /proc/[0-9]*/cmdline /tmp /work /etc /home 2>/dev/null | grep -v '^/proc/self/' || true";
      expect((await inside(agent, search, CLAUDE_KEY)).stdout.trim()).toBe("");
      const token =
        (
          await inside(
            agent,
            "tr '\\0' '\\n' </proc/1/environ | sed -n 's/^ANTHROPIC_API_KEY=//p'; for p in /proc/[0-9]*; do tr '\\0' '\\n' <$p/environ 2>/dev/null | sed -n 's/^ANTHROPIC_API_KEY=//p'; done | head -1",
          )
        ).stdout
          .trim()
          .split("\n")[0] ?? "";
      expect(token).toMatch(/^agentcage-run-/);
      expect((await inside(agent, search, token)).stdout).toMatch(/\/proc\/\d+\/environ/);
      const inspected = await docker("inspect", agent);
      expect(inspected).not.toContain(CLAUDE_KEY);
      expect(inspected).toContain(token);

      // The token works now (through the proxy, from inside)...
      const probe = `exec 3<>/dev/tcp/egress/${gateway.port}; printf 'POST /v1/messages/count_tokens HTTP/1.1\\r\\nHost: egress\\r\\nx-api-key: %s\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\n{}' "$(cat)" >&3; timeout 5 head -1 <&3`;
      expect((await inside(agent, probe, token)).stdout).toMatch(/^HTTP\/1\.1 200/);
      // ...for the model's API alone: the control routes (another Run's meter, the breach events) are not on the agents' port.
      for (const path of ["/v1/runs/0123456789abcdef/meter", "/v1/events", "/v1/runs"]) {
        const control = `exec 3<>/dev/tcp/egress/${gateway.port}; printf 'GET ${path} HTTP/1.1\\r\\nHost: egress\\r\\nx-api-key: %s\\r\\nauthorization: Bearer %s\\r\\nconnection: close\\r\\n\\r\\n' "$T" "$T" >&3; timeout 5 head -1 <&3`;
        const answer = (await inside(agent, `T=$(cat); ${control}`, token)).stdout;
        expect(answer, path).toMatch(/^HTTP\/1\.1 4\d\d/);
      }
      controller.abort();
      outcome = await running;
      // ...and not the moment the Run has ended: from the host, on the proxy's own address.
      const proxyAddress = await addressOn(gateway.container, upstreamNetwork);
      const dead = await fetch(`http://${proxyAddress}:${gateway.port}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: "{}",
      });
      expect(dead.status).toBe(401);
    } finally {
      controller.abort();
      outcome ??= await running;
    }
    expect(outcome).toMatchObject({ reason: "cancelled", network: { policy: "model" } });
    expect(JSON.stringify(outcome)).not.toContain(CLAUDE_KEY);
  }, 180_000);

  it("a Run's token works only from its own Run's network: from inside another live Run's container it is refused", async () => {
    const controller = new AbortController();
    const tokenOf = async (agent: string): Promise<string> =>
      (
        await inside(agent, "for p in /proc/[0-9]*; do tr '\\0' '\\n' <$p/environ 2>/dev/null | sed -n 's/^ANTHROPIC_API_KEY=//p'; done | head -1")
      ).stdout.trim();
    const probe = `exec 3<>/dev/tcp/egress/${gateway.port}; printf 'POST /v1/messages/count_tokens HTTP/1.1\\r\\nHost: egress\\r\\nx-api-key: %s\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\n{}' "$(cat)" >&3; timeout 5 cat <&3`;
    const first = model.run({ cli: "claude", timeoutSeconds: 120 }, "Wait for the model. [stand-in:hang]", { signal: controller.signal });
    let second: Promise<AgentOutcome> | undefined;
    try {
      const agentA = await liveAgentContainer();
      second = model.run({ cli: "claude", timeoutSeconds: 120 }, "Wait for the model. [stand-in:hang]", { signal: controller.signal });
      const agentB = await liveAgentContainer();
      const [tokenA, tokenB] = [await tokenOf(agentA), await tokenOf(agentB)];
      expect(tokenA).toMatch(/^agentcage-run-/);
      expect(tokenB).toMatch(/^agentcage-run-/);
      expect(tokenA).not.toBe(tokenB);
      // Each works from its own container (the positive control)...
      expect((await inside(agentA, probe, tokenA)).stdout).toMatch(/^HTTP\/1\.1 200/);
      expect((await inside(agentB, probe, tokenB)).stdout).toMatch(/^HTTP\/1\.1 200/);
      // ...and A's, stolen into B, is refused there and bills A nothing.
      const runOf = (agent: string): Promise<string> => docker("inspect", "-f", '{{index .Config.Labels "agentcage.run"}}', agent);
      const [runA, runB] = [await runOf(agentA), await runOf(agentB)];
      const before = await gateway.meter(runA);
      const stolen = (await inside(agentB, probe, tokenA)).stdout;
      expect(stolen).toMatch(/^HTTP\/1\.1 403/);
      expect(stolen).toContain("token_elsewhere");
      const after = await gateway.meter(runA);
      expect(after?.requests).toBe(before?.requests);
      expect(after?.refused).toBe((before?.refused ?? 0) + 1);
      expect((await gateway.meter(runB))?.refused).toBe(0);
    } finally {
      controller.abort();
    }
    const outcomes = await Promise.all([first, ...(second === undefined ? [] : [second])]);
    expect(outcomes.map((o) => o.reason)).toEqual(["cancelled", "cancelled"]);
  }, 180_000);

  it("an answer that streams for longer than stallSeconds while the CLI prints nothing is life, not a stall: the proxy sees it", async () => {
    // The model thinks for 9 s, its stream's bytes flowing all along (comment lines), then answers.
    const outcome = await model.run({ cli: "claude", timeoutSeconds: 120, stallSeconds: 3 }, "What is the capital of France? [stand-in-pace:9000]");
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, reason: "completed", result: { text: PLAIN_ANSWER } });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(9000);
  }, 120_000);

  it("a Run's token spends only its own budget: a second Run's calls are metered to it alone", async () => {
    const [first, second] = await Promise.all([
      model.run({ cli: "claude", timeoutSeconds: 120, budget: { maxTurns: 5 } }, "What is the capital of France?"),
      model.run({ cli: "claude", timeoutSeconds: 120, budget: { maxTurns: 5 } }, "What is the capital of France?"),
    ]);
    expect(first.ok && second.ok, JSON.stringify([first, second])).toBe(true);
    expect(first.network?.meter?.runId).not.toBe(second.network?.meter?.runId);
    expect(first.network?.meter?.runId).toBe(first.runId);
    expect(first.network?.meter?.turns).toBe(1);
    expect(second.network?.meter?.turns).toBe(1);
  }, 120_000);

  it("the proxy's budget ends a Run whose agent keeps calling the model: budget_exceeded, the answer so far and the metered usage", async () => {
    const events: AgentEvent[] = [];
    const outcome = await model.run({ cli: "claude", timeoutSeconds: 120, maxTurns: 50, budget: { maxTurns: 2 } }, "Keep going. [stand-in:max_turns]", {
      onEvent: (e) => events.push(e),
    });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      ok: false,
      reason: "budget_exceeded",
      budget: { exceeded: "maxTurns" },
      network: { policy: "model" },
    });
    expect(outcome.network?.meter).toMatchObject({ turns: 2, refused: expect.any(Number), breach: { cap: "maxTurns", limit: 2 } });
    expect(outcome.network?.meter?.usage.inputTokens).toBe(ANTHROPIC_USAGE.input_tokens * 2);
    expect(outcome.result?.text).toBe(loopText(2));
    expect(events.some((e) => e.type === "metered")).toBe(true);
  }, 120_000);

  it("the proxy holds codex to a token cap its stream cannot tell until the end: budget_exceeded on the provider's own counts", async () => {
    const outcome = await model.run({ cli: "codex", timeoutSeconds: 120, budget: { maxTokens: 50 } }, "Keep going. [stand-in:max_turns]");
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      ok: false,
      reason: "budget_exceeded",
      budget: { exceeded: "maxTokens" },
      network: { policy: "model", meter: { breach: { cap: "maxTokens", limit: 50 } } },
    });
    expect(outcome.network?.meter?.tokens).toBeGreaterThan(50);
  }, 120_000);
});

describe("under gVisor (runsc), which this engine runs with no network", () => {
  it('a "model" Run cannot reach its model, and the Outcome says the runtime is why', async () => {
    const runner = createAgentRunner({
      image: AGENT_IMAGE,
      apiRetries: 0,
      owner: OWNER,
      environment: { ANTHROPIC_API_KEY: CLAUDE_KEY },
      networkPolicy: "model",
      egress: gateway,
      containerRuntime: "runsc",
    });
    const outcome = await runner.run({ cli: "claude", timeoutSeconds: 60 }, "What is the capital of France?");
    expect(outcome).toMatchObject({ ok: false, containerRuntime: "runsc", network: { policy: "model", meter: { turns: 0 } } });
    expect(outcome.error).toContain('the container runtime "runsc" may give the agent no network on this engine');
  }, 120_000);
});

describe('under networkPolicy "allowlist"', () => {
  it("a CONNECT to a listed host:port opens a tunnel, and to any other is refused", async () => {
    // A private address goes only when it is listed as that very address; listed by a name that
    // resolves to it (here the stand-in's container name), it is refused after resolution.
    const listed = `${await addressOn(standIn.name, upstreamNetwork)}:8080`;
    const named = `${standIn.name}:8080`;
    const runner = runnerWith("allowlist", [listed, named]);
    const controller = new AbortController();
    const running = runner.run({ cli: "claude", timeoutSeconds: 120 }, "Wait for the model. [stand-in:hang]", { signal: controller.signal });
    try {
      const agent = await liveAgentContainer();
      // As a package manager would: through HTTPS_PROXY, with the Run's token as its password.
      const connect = (target: string): string =>
        `auth=$(printf %s "\${HTTPS_PROXY#http://}" | sed 's/@.*//' | base64 -w0); exec 3<>/dev/tcp/egress/${gateway.port}; ` +
        `printf 'CONNECT ${target} HTTP/1.1\\r\\nHost: ${target}\\r\\nProxy-Authorization: Basic %s\\r\\n\\r\\n' "$auth" >&3; ` +
        `read -r status <&3; echo "$status"; ` +
        `case "$status" in *" 200 "*) while read -r line <&3; do [ "$line" = $'\\r' ] && break; done; printf 'GET / HTTP/1.1\\r\\nHost: x\\r\\nconnection: close\\r\\n\\r\\n' >&3; timeout 5 cat <&3 | grep -a "stand-in model";; esac`;
      const through = await inside(agent, `export $(tr '\\0' '\\n' < /proc/1/environ | grep ^HTTPS_PROXY=); ${connect(listed)}`);
      expect(through.stdout, through.stderr).toMatch(/200 Connection Established/);
      expect(through.stdout, JSON.stringify(through)).toContain("stand-in model");
      const refused = await inside(agent, `export $(tr '\\0' '\\n' < /proc/1/environ | grep ^HTTPS_PROXY=); ${connect(`${standIn.name}:9999`)}`);
      expect(refused.stdout).toMatch(/^HTTP\/1\.1 403/);
      const elsewhere = await inside(agent, `export $(tr '\\0' '\\n' < /proc/1/environ | grep ^HTTPS_PROXY=); ${connect("example.com:443")}`);
      expect(elsewhere.stdout).toMatch(/^HTTP\/1\.1 403/);
      const byName = await inside(agent, `export $(tr '\\0' '\\n' < /proc/1/environ | grep ^HTTPS_PROXY=); ${connect(named)}; timeout 3 cat <&3`);
      expect(byName.stdout).toMatch(/^HTTP\/1\.1 403/);
      expect(byName.stdout).toContain("a private address");
    } finally {
      controller.abort();
    }
    const outcome = await running;
    expect(outcome).toMatchObject({ reason: "cancelled", network: { policy: "allowlist" } });
    expect(outcome.network?.meter?.refused).toBe(3);
  }, 180_000);

  it('under "model" the same CONNECT is refused: a model-only Run has no allowlist', async () => {
    const controller = new AbortController();
    const running = model.run({ cli: "claude", timeoutSeconds: 120 }, "Wait for the model. [stand-in:hang]", { signal: controller.signal });
    try {
      const agent = await liveAgentContainer();
      const token = (await inside(agent, "tr '\\0' '\\n' </proc/1/environ | sed -n 's/^ANTHROPIC_API_KEY=//p'")).stdout.trim();
      const result = await inside(
        agent,
        `exec 3<>/dev/tcp/egress/${gateway.port}; printf 'CONNECT ${standIn.name}:8080 HTTP/1.1\\r\\nHost: x\\r\\nProxy-Authorization: Bearer %s\\r\\n\\r\\n' "$(cat)" >&3; timeout 5 head -1 <&3`,
        token,
      );
      expect(result.stdout, JSON.stringify(result)).toMatch(/^HTTP\/1\.1 405/);
    } finally {
      controller.abort();
      const outcome = await running;
      expect(outcome.reason, JSON.stringify(outcome)).toBe("cancelled");
    }
  }, 180_000);
});
