// `agentcage mcp` sent one JSON-RPC message over its size limit by the SDK's own Client (spawning
// the built command): that call is refused in one sentence naming the limit, the session goes on
// answering, and closing stdin still ends it as before.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { MAIN } from "../../test/support/command.js";

const MiB = 1024 * 1024;
const root = mkdtempSync(join(tmpdir(), "agentcage-mcp-oversized-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 30 s`);
}

describe("agentcage mcp sent a message over its size limit", () => {
  it("refuses that call in one sentence naming the limit, answers the next, and still ends when stdin closes", async () => {
    const client = new Client({ name: "agentcage-oversized-test", version: "1" });
    const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "--runtime-dir", join(root, "rt")], stderr: "pipe" });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let ended = false;
    transport.onclose = () => (ended = true);
    await client.connect(transport);
    const prompt = "x".repeat(11 * MiB);
    const refused = client.callTool({ name: "run_agent", arguments: { cli: "claude", prompt } }, undefined, { timeout: 60_000 });
    await expect(refused).rejects.toThrow(
      /: this message is \d+ bytes, over MAX_MESSAGE_BYTES \(10485760\), so it was not read; hand large inputs over as files/,
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("run_agent");
    expect(ended).toBe(false);
    expect(stderr).toMatch(/agentcage mcp: this message is \d+ bytes, over MAX_MESSAGE_BYTES/);
    const pid = transport.pid as number;
    await client.close();
    await until(() => !alive(pid), "agentcage mcp ending once its stdin closed");
    expect(stderr).toContain("agentcage mcp: stdin closed: no new Runs; draining");
  }, 120_000);
});
