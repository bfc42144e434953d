// The real claude and codex CLIs, in the agent image, reach the stand-in model only through the
// egress proxy, which runs as its own locked-down container (the orchestrator image's Node and
// dependencies, this folder compiled) and is driven over its control socket, as in production.
// All three share the stand-in's network namespace, which has no network but loopback.
import { execFile, spawn } from "node:child_process";
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";
import { AGENT_IMAGE, startStandInModel, type RunningStandIn } from "../../test/support/stand-in-container.js";
import { createEgressControlClient, type EgressBreach, type EgressControlClient } from "./index.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const PROXY_IMAGE = "agentcage-orchestrator:latest";
const PROXY_PORT = 8751;
const UID = 10002;
const CLAUDE_KEY = `sk-ant-api03-e2e-${randomBytes(12).toString("hex")}`;
const OPENAI_KEY = `sk-proj-e2e-${randomBytes(12).toString("hex")}`;
const SECRET = randomBytes(32).toString("base64url");

let dir = "";
let standIn: RunningStandIn | undefined;
let proxyName = "";
let control: EgressControlClient | undefined;

async function proxyLog(): Promise<string> {
  const { stdout, stderr } = await run("docker", ["logs", proxyName]);
  return stdout + stderr;
}

/** Runs one agent in the agent image on the stand-in's loopback; the token goes by name only (`--env NAME`), its value in the docker client's environment. */
function agent(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  secretEnv: Readonly<Record<string, string>>,
  prompt: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const words = [
    "run",
    "--rm",
    "-i",
    "--init",
    "--network",
    standIn!.network,
    "--user",
    `${UID}:${UID}`,
    "--read-only",
    "--tmpfs",
    "/tmp:rw,size=256m",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--label",
    "agentcage.owner=agentcage-egress-e2e",
    ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
    ...Object.keys(secretEnv).flatMap((k) => ["--env", k]),
    AGENT_IMAGE,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("docker", words, { env: { ...process.env, ...secretEnv }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(prompt);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentcage-egress-e2e-"));
  await chmod(dir, 0o755);
  // This folder compiled alone (with the masker it imports), for the orchestrator image's Node and node_modules.
  const out = join(dir, "dist");
  await run(
    "npx",
    [
      "tsc",
      "--outDir",
      out,
      "--rootDir",
      join(repoRoot, "src"),
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--skipLibCheck",
      "--types",
      "node",
      join(repoRoot, "src/egress/main.ts"),
    ],
    { cwd: repoRoot },
  );
  const controlDir = join(dir, "control");
  await mkdir(controlDir);
  await chown(controlDir, UID, UID);
  await chmod(controlDir, 0o700);
  const secretFile = join(dir, "control-secret");
  await writeFile(secretFile, SECRET, { mode: 0o400 });
  await chown(secretFile, UID, UID);

  standIn = await startStandInModel("plain");
  proxyName = `agentcage-egress-e2e-${randomBytes(4).toString("hex")}`;
  await run("docker", [
    "run",
    "-d",
    "--rm",
    "--name",
    proxyName,
    "--network",
    standIn.network,
    "--user",
    `${UID}:${UID}`,
    "--read-only",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--label",
    "agentcage.owner=agentcage-egress-e2e",
    "--mount",
    `type=bind,source=${out},target=/app/dist-egress,readonly`,
    "--mount",
    `type=bind,source=${controlDir},target=/run/agentcage`,
    "--mount",
    `type=bind,source=${secretFile},target=/run/secrets/egress-control,readonly`,
    "--env",
    "AGENTCAGE_EGRESS_HOST=127.0.0.1",
    "--env",
    `AGENTCAGE_EGRESS_PORT=${PROXY_PORT}`,
    "--env",
    `AGENTCAGE_EGRESS_UPSTREAM_CLAUDE=${standIn.baseUrl}`,
    "--env",
    `AGENTCAGE_EGRESS_UPSTREAM_CODEX=${standIn.baseUrl}`,
    "--env",
    "AGENTCAGE_EGRESS_CONTROL_SECRET_FILE=/run/secrets/egress-control",
    "--entrypoint",
    "node",
    PROXY_IMAGE,
    "/app/dist-egress/egress/main.js",
  ]);
  const socketPath = join(controlDir, "egress.sock");
  const deadline = Date.now() + 20_000;
  while (
    !(await stat(socketPath).then(
      (s) => s.isSocket(),
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`the egress proxy did not start: ${await proxyLog()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  control = createEgressControlClient({ socketPath, secret: SECRET });
}, 180_000);

afterAll(async () => {
  control?.close();
  if (proxyName !== "") await run("docker", ["rm", "-f", proxyName]).catch(() => undefined);
  await standIn?.stop();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

describe("the real CLIs through the egress proxy", () => {
  it("claude answers with only the per-Run token in its container, and the proxy meters its calls", async () => {
    const { token } = await control!.register({
      runId: "e2e-claude",
      provider: "anthropic",
      credential: { kind: "api_key", value: CLAUDE_KEY },
      budget: { maxTurns: 10 },
    });
    const result = await agent(
      ["claude", "--print", "--output-format", "stream-json", "--verbose", "--max-turns", "2"],
      { ANTHROPIC_BASE_URL: `http://127.0.0.1:${PROXY_PORT}`, CLAUDE_CODE_MAX_RETRIES: "0", DISABLE_AUTOUPDATER: "1" },
      { ANTHROPIC_API_KEY: token },
      "What is the capital of France?",
    );
    const records = result.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const final = records.find((r) => r["type"] === "result");
    expect(final, `${result.stdout}\n${result.stderr}\n${await proxyLog()}`).toMatchObject({ result: PLAIN_ANSWER, is_error: false });
    const meter = await control!.revoke("e2e-claude");
    expect(meter?.turns).toBeGreaterThanOrEqual(1);
    expect(meter?.usage.inputTokens).toBe(21 * meter!.turns);
    const log = await proxyLog();
    // claude's reachability probe is answered by the proxy itself, not refused.
    expect(log).not.toMatch(/"path":"\/api\/hello"[^\n]*"refused"/);
    expect(log).not.toContain(CLAUDE_KEY);
    expect(log).not.toContain(token);
    console.log(
      `claude's requests through the proxy:\n${log
        .split("\n")
        .filter((l) => l.includes("e2e-claude") && l.includes('"method"'))
        .join("\n")}`,
    );
  }, 120_000);

  it("codex answers with only the per-Run token in its container, and the proxy meters its calls", async () => {
    const { token } = await control!.register({ runId: "e2e-codex", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const result = await agent(
      [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "--ignore-user-config",
        "--sandbox",
        "danger-full-access",
        "-c",
        "analytics.enabled=false",
        "-c",
        'otel.metrics_exporter="none"',
        "-c",
        "check_for_update_on_startup=false",
        "-c",
        'model_provider="agentcage"',
        "-c",
        `model_providers.agentcage={name="agentcage",base_url="http://127.0.0.1:${PROXY_PORT}/v1",env_key="OPENAI_API_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
        "-",
      ],
      {},
      { OPENAI_API_KEY: token },
      "What is the capital of France?",
    );
    expect(result.stdout, `${result.stdout}\n${result.stderr}\n${await proxyLog()}`).toContain(PLAIN_ANSWER);
    const meter = await control!.revoke("e2e-codex");
    expect(meter?.turns).toBeGreaterThanOrEqual(1);
    expect(meter?.usage).toMatchObject({ inputTokens: (130 - 64) * meter!.turns, cacheReadTokens: 64 * meter!.turns });
    const log = await proxyLog();
    expect(log).not.toContain(OPENAI_KEY);
    expect(log).not.toContain(token);
    console.log(
      `codex's requests through the proxy:\n${log
        .split("\n")
        .filter((l) => l.includes("e2e-codex") && l.includes('"method"'))
        .join("\n")}`,
    );
  }, 120_000);

  it("a spent budget ends claude's Run at once: the call past maxTurns is refused, not retried, and the breach is reported", async () => {
    const breaches: EgressBreach[] = [];
    const unsubscribe = control!.onBreach((b) => breaches.push(b));
    await control!.eventsOpen();
    const { token } = await control!.register({
      runId: "e2e-claude-budget",
      provider: "anthropic",
      credential: { kind: "api_key", value: CLAUDE_KEY },
      budget: { maxTurns: 1 },
    });
    const started = Date.now();
    const result = await agent(
      ["claude", "--print", "--output-format", "stream-json", "--verbose", "--max-turns", "5", "--dangerously-skip-permissions"],
      { ANTHROPIC_BASE_URL: `http://127.0.0.1:${PROXY_PORT}`, CLAUDE_CODE_MAX_RETRIES: "3", DISABLE_AUTOUPDATER: "1" },
      { ANTHROPIC_API_KEY: token },
      "Write the file and run the command. [stand-in:tool_write_bash]",
    );
    const seconds = (Date.now() - started) / 1000;
    const final = result.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r["type"] === "result");
    expect(final, `${result.stdout}\n${result.stderr}`).toMatchObject({ is_error: true });
    expect(JSON.stringify(final)).toContain("budget");
    expect(seconds).toBeLessThan(30);
    const meter = await control!.revoke("e2e-claude-budget");
    expect(meter).toMatchObject({ turns: 1, breach: { cap: "maxTurns", limit: 1 } });
    expect(meter?.refused).toBe(1);
    const deadline = Date.now() + 5_000;
    while (breaches.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    unsubscribe();
    expect(breaches).toEqual([expect.objectContaining({ runId: "e2e-claude-budget", cap: "maxTurns" })]);
    console.log(`claude's end past its budget (${seconds.toFixed(1)} s): ${JSON.stringify(final).slice(0, 400)}`);
  }, 120_000);

  it("a spent budget ends codex's Run at once: the call past maxTurns is refused, not retried, and codex reports the proxy's message", async () => {
    const { token } = await control!.register({
      runId: "e2e-codex-budget",
      provider: "openai",
      credential: { kind: "api_key", value: OPENAI_KEY },
      budget: { maxTurns: 1 },
    });
    const codex = (): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      agent(
        [
          "codex",
          "exec",
          "--json",
          "--skip-git-repo-check",
          "--ephemeral",
          "--ignore-user-config",
          "--sandbox",
          "danger-full-access",
          "-c",
          "analytics.enabled=false",
          "-c",
          'otel.metrics_exporter="none"',
          "-c",
          "check_for_update_on_startup=false",
          "-c",
          'model_provider="agentcage"',
          "-c",
          `model_providers.agentcage={name="agentcage",base_url="http://127.0.0.1:${PROXY_PORT}/v1",env_key="OPENAI_API_KEY",wire_api="responses",request_max_retries=3,stream_max_retries=3}`,
          "-",
        ],
        {},
        { OPENAI_API_KEY: token },
        "What is the capital of France?",
      );
    // The one model call the budget allows, then a second codex on the same Run's token.
    expect((await codex()).stdout).toContain(PLAIN_ANSWER);
    const started = Date.now();
    const result = await codex();
    const seconds = (Date.now() - started) / 1000;
    expect(result.stdout, `${result.stdout}\n${result.stderr}`).toContain("turn.failed");
    expect(result.stdout).toContain("budget");
    expect(result.code).not.toBe(0);
    expect(seconds).toBeLessThan(30);
    expect(await control!.revoke("e2e-codex-budget")).toMatchObject({ turns: 1, refused: 1, breach: { cap: "maxTurns" } });
    console.log(
      `codex's end past its budget (${seconds.toFixed(1)} s, exit ${result.code}): ${result.stdout
        .split("\n")
        .filter((l) => l.includes("turn.failed"))
        .join(" ")
        .slice(0, 400)}`,
    );
  }, 120_000);
});
