// `agentcage mcp`: the MCP server over stdio until its client closes stdin (or SIGTERM, Ctrl-C);
// then its Runs drain as serve's do (running ones get the grace, then are cancelled) and it exits 0.
// Everything it says for a person goes to stderr: stdout carries JSON-RPC only.

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { localMcpServer, serve, ServeError, type ServeOptions } from "../server/index.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import { UsageError } from "./options.js";

export async function mcpCommand(options: ServeOptions, io: ProgramIo): Promise<number> {
  let running;
  try {
    running = await serve(options);
  } catch (error) {
    if (error instanceof ServeError) throw new UsageError(error.message);
    throw error;
  }
  const server = localMcpServer(running);
  const transport = new StdioServerTransport();
  const closed = new Promise<string>((resolve) => {
    transport.onclose = () => resolve("stdin closed");
    process.stdin.once("end", () => resolve("stdin closed"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
    io.onInterrupt(() => resolve("SIGINT"));
  });
  await server.connect(transport);
  io.stderr.write(`agentcage mcp: serving MCP on stdio; Runs under ${options.runtimeDir}\n`);
  const why = await closed;
  io.stderr.write(`agentcage mcp: ${why}: no new Runs; draining\n`);
  await server.close().catch(() => undefined);
  try {
    await running.stop();
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(`agentcage mcp: the drain failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  }
}
