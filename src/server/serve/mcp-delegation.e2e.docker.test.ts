// One caged claude hands a task to another through agentcage's MCP server: the real claude CLI, in
// the agent image, given an --mcp-config naming /mcp of a real `agentcage serve --stand-in` (with a
// bearer token, from a mounted file: never an argv), calls run_agent; the service runs a second
// claude in its own container to its end and the first one quotes its answer. Both models are the
// stand-in: the delegating claude's runs in this process (`[stand-in-delegate]`), on loopback.

import { type ChildProcess, execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicEnvironment } from "../../agents/index.js";
import { startServeProcess } from "../../../test/support/serve-process.js";
import { AGENT_IMAGE } from "../../../test/support/stand-in-container.js";
import { DELEGATE_TOOL, DELEGATED_PROMPT, delegatedAnswer, PLAIN_ANSWER, startStandInModel, type StandInModel } from "../../../test/stand-in/index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-mcp-delegate-"));
const TOKEN = "service-mcp-delegation-token-0123456789";
let service: ChildProcess | undefined;
let url = "";
let model: StandInModel | undefined;

async function startService(): Promise<string> {
  const started = await startServeProcess({ runtimeDir: join(root, "rt"), token: TOKEN });
  service = started.child;
  return started.url;
}

/** The delegating claude: the agent image, locked down, on the host's loopback (its model and the service are there); its stdout. */
function runDelegatingClaude(configDir: string): Promise<{ stdout: string; stderr: string }> {
  const environment = { ...publicEnvironment("claude", { anthropicBaseUrl: model?.url as string }), ENABLE_TOOL_SEARCH: "false" };
  const args = [
    "run",
    "--rm",
    "--network",
    "host",
    "--read-only",
    "--tmpfs",
    "/tmp:rw,nosuid,nodev,size=64m,mode=1777",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--user",
    "10002:10002",
    "--workdir",
    "/tmp",
    "--mount",
    `type=bind,source=${configDir},target=/cfg,readonly`,
    ...Object.keys(environment).flatMap((name) => ["--env", name]),
    "--env",
    "ANTHROPIC_API_KEY",
    AGENT_IMAGE,
    "claude",
    "-p",
    "[stand-in-delegate] Have a caged agent answer: what is the capital of France?",
    "--output-format",
    "stream-json",
    "--verbose",
    "--max-turns",
    "4",
    "--mcp-config",
    "/cfg/mcp.json",
    "--strict-mcp-config",
    "--allowedTools",
    DELEGATE_TOOL,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      "docker",
      args,
      { env: { ...process.env, ...environment, ANTHROPIC_API_KEY: "sk-ant-stand-in-delegating" }, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error === null ? resolve({ stdout, stderr }) : reject(new Error(`${error.message}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`)),
    );
  });
}

beforeAll(async () => {
  model = await startStandInModel({ scenario: "plain" });
  url = await startService();
}, 60_000);

afterAll(async () => {
  service?.kill("SIGTERM");
  if (service !== undefined && service.exitCode === null) await new Promise((resolve) => service?.once("exit", resolve));
  await model?.close();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("a caged claude delegating to another through /mcp", () => {
  it("calls run_agent over streamable HTTP, and the service's claude answers it", async () => {
    const configDir = join(root, "cfg");
    mkdirSync(configDir);
    chmodSync(configDir, 0o755);
    const config = { mcpServers: { agentcage: { type: "http", url: `${url}/mcp`, headers: { Authorization: `Bearer ${TOKEN}` } } } };
    writeFileSync(join(configDir, "mcp.json"), JSON.stringify(config), { mode: 0o644 });

    const { stdout } = await runDelegatingClaude(configDir);
    const records = stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const init = records.find((record) => record["type"] === "system" && record["subtype"] === "init") as { mcp_servers?: unknown; tools?: string[] };
    expect(init.mcp_servers).toEqual([expect.objectContaining({ name: "agentcage", status: "connected" })]);
    expect(init.tools).toContain(DELEGATE_TOOL);
    const result = records.find((record) => record["type"] === "result");
    expect(result).toMatchObject({ is_error: false, result: delegatedAnswer(PLAIN_ANSWER) });

    // The service made that Run: the delegated prompt, by the claude CLI, in a container of its own, to its end.
    const listed = (await (await fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      runs: Array<{ id: string; cli: string; state: string }>;
    };
    expect(listed.runs).toEqual([expect.objectContaining({ cli: "claude", state: "completed" })]);
    const request = (await (await fetch(`${url}/v1/runs/${listed.runs[0]?.id}/request`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      prompt: string;
    };
    expect(request.prompt).toBe(DELEGATED_PROMPT);
  });
});
