// `agentcage mcp`: the MCP server over stdio until its client closes stdin (or SIGTERM, Ctrl-C);
// then its Runs are cancelled (no one is left to read them), a runtime directory of its own is
// removed, and it exits 0. What it says for a person goes to stderr:
// stdout carries JSON-RPC only.

import { rm } from "node:fs/promises";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { localMcpServer, serve, ServeError, type ServeOptions } from "../server/index.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import { UsageError } from "./options.js";

/** `ownDirectory`: the runtime directory is this process's alone (no --runtime-dir), and goes at its end. */
export async function mcpCommand(options: ServeOptions, io: ProgramIo, ownDirectory: boolean): Promise<number> {
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
    // The client that asked for the Runs is gone, and gives a server a few seconds before it kills
    // it (the SDK's: 2 s, then SIGTERM, 2 s more, then SIGKILL): its Runs are cancelled at once.
    await running.stop(0);
  } catch (error) {
    io.stderr.write(`agentcage mcp: the drain failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  }
  if (!ownDirectory) return EXIT.completed;
  try {
    await rm(options.runtimeDir, { recursive: true, force: true });
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(
      `agentcage mcp: ${options.runtimeDir} could not be removed (${error instanceof Error ? error.message : String(error)}); remove it by hand\n`,
    );
    return EXIT.failed;
  }
}
