// `agentcage mcp --stand-in` while its stand-in starts, as an MCP client meets it (the SDK's own
// Client spawning the built command): the handshake is answered at once, whatever the stand-in
// does. Held paused longer than the 20 s its start was once bounded by, run_agent waits for it and
// completes; killed at its start, every tool call is an error naming it while the server lives on,
// and closing stdin ends it with no container left. Its containers are caught by its pid label.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { atStart, containersWithLabel, pausedFor, unpause } from "../../test/support/at-start.js";
import { MAIN } from "../../test/support/command.js";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-mcp-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Longer than the 20 s the start was once bounded by. */
const PAUSE_MS = 25_000;

/** `agentcage mcp --stand-in` spawned by an MCP client, its stand-in's container met at its start with `act`; resolves once the handshake is done. */
function mcpWithStandIn(name: string, act: "pause" | "kill") {
  const client = new Client({ name: "agentcage-start-test", version: "1" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp", "--stand-in", "--runtime-dir", join(root, name)],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // connect() spawns the command at once (the handshake follows): its pid is known before its stand-in can start.
  const connecting = client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error("the MCP client's transport spawned no process");
  const standIn = atStart({ label: [`agentcage.pid=${pid}`, "agentcage.owner=agentcage-stand-in"] }, act);
  return { client, pid, standIn: standIn.caught, connected: connecting, stderr: () => stderr };
}

const call = (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 }) as Promise<CallToolResult>;

describe("agentcage mcp --stand-in while its stand-in starts", () => {
  it("answers the handshake while the stand-in is held paused, and run_agent waits for it and completes", async () => {
    const mcp = mcpWithStandIn("paused", "pause");
    try {
      const paused = await mcp.standIn;
      // Answered while the stand-in cannot listen: nothing of the handshake waits for it.
      await mcp.connected;
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toContain("run_agent");
      const running = call(mcp.client, "run_agent", { cli: "claude", prompt: "What is the capital of France?" });
      await pausedFor(PAUSE_MS, running);
      await unpause(paused);
      const result = await running;
      expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
      expect(result.structuredContent).toMatchObject({ state: "completed", outcome: { ok: true, result: { text: PLAIN_ANSWER } } });
    } finally {
      await mcp.client.close();
    }
    expect(await containersWithLabel(`agentcage.pid=${mcp.pid}`)).toEqual([]);
  }, 240_000);

  it("answers the handshake when the stand-in is killed at its start, and each tool call is an error naming it", async () => {
    const mcp = mcpWithStandIn("killed", "kill");
    try {
      await mcp.standIn;
      await mcp.connected;
      for (const [name, args] of [
        ["run_agent", { cli: "claude", prompt: "What is the capital of France?" }],
        ["run_status", { id: "0123456789abcdef" }],
      ] as const) {
        const result = await call(mcp.client, name, args);
        expect(result.isError, name).toBe(true);
        expect(result.content).toEqual([
          {
            type: "text",
            text: expect.stringMatching(
              /^serve_refused: agentcage mcp could not start what its Runs need, so it runs none: the stand-in model exited \(code 137/,
            ),
          },
        ]);
      }
      expect(mcp.stderr()).toContain("agentcage mcp: the stand-in model exited (code 137");
    } finally {
      await mcp.client.close();
    }
    expect(await containersWithLabel(`agentcage.pid=${mcp.pid}`)).toEqual([]);
  }, 120_000);
});
