// The MCP example (`npm run example:mcp`): the MCP SDK's own client starts `agentcage mcp --stand-in`
// over stdio, as Claude Code or Claude Desktop would, and hands a caged claude a task with a
// directory of input files: it prints each progress notification while the Run goes, the agent's
// answer, and the file the agent wrote, read back with read_artifact. No key: the stand-in answers.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

// dist-tools/examples/ -> the package root, where dist/cli/main.js is.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const project = mkdtempSync(join(tmpdir(), "agentcage-mcp-example-"));
writeFileSync(join(project, "notes.md"), "# Notes\n\nParis is the capital of France.\n");

const client = new Client({ name: "agentcage-example", version: "1" });
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(ROOT, "dist", "cli", "main.js"), "mcp", "--stand-in", ...process.argv.slice(2)],
  stderr: "ignore",
});
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
  const run = (await client.callTool(
    // [stand-in:tool_write_bash] has the stand-in's claude write out/answer.txt and run a command.
    {
      name: "run_agent",
      arguments: { cli: "claude", prompt: "[stand-in:tool_write_bash] Read notes.md and write the answer to out/answer.txt", inputs: project },
    },
    undefined,
    { timeout: 600_000, resetTimeoutOnProgress: true, onprogress: (told) => console.log(`  progress ${told.progress}: ${told.message ?? ""}`) },
  )) as CallToolResult;
  const outcome = run.structuredContent as { id: string; state: string; outcome?: { result?: { text?: string } } } | undefined;
  if (run.isError === true || outcome === undefined) throw new Error(JSON.stringify(run.content));
  console.log(`Run ${outcome.id}: ${outcome.state}`);
  console.log(`answer: ${outcome.outcome?.result?.text ?? "(none)"}`);
  const file = (await client.callTool({ name: "read_artifact", arguments: { id: outcome.id, path: "answer.txt" } })) as CallToolResult;
  console.log(`answer.txt: ${JSON.stringify((file.structuredContent as { text?: string } | undefined)?.text)}`);
} finally {
  await client.close();
  rmSync(project, { recursive: true, force: true });
}
