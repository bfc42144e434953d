// `agentcage mcp`: the MCP server over stdio until its client closes stdin (or SIGTERM, Ctrl-C);
// then its Runs are cancelled (no one is left to read them), a runtime directory of its own is
// removed, and it exits 0. A message over MAX_MESSAGE_BYTES is refused, never taken for stdin closed. It answers the handshake at once, while its service starts (the stand-in,
// the egress proxy): a tool call waits for the start, and a start that failed is the tool's error
// with its sentence, never a server gone. A wrong option is refused before anything starts (exit 2).
// What it says for a person goes to stderr: stdout carries JSON-RPC only.

import { rm } from "node:fs/promises";
import { createStdioTransport } from "../mcp/index.js";
import { checkServeOptions, localMcpServer, serve, ServeError, type ServeOptions } from "../server/index.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import { UsageError } from "./options.js";

/** `ownDirectory`: the runtime directory is this process's alone (no --runtime-dir), and goes at its end. */
export async function mcpCommand(options: ServeOptions, io: ProgramIo, ownDirectory: boolean): Promise<number> {
  try {
    await checkServeOptions(options);
  } catch (error) {
    if (error instanceof ServeError) throw new UsageError(error.message);
    throw error;
  }
  const starting = new AbortController();
  const started = serve({ ...options, signal: starting.signal });
  started.then(
    () => io.stderr.write("agentcage mcp: ready: its Runs can start\n"),
    (error: unknown) => {
      if (!starting.signal.aborted)
        io.stderr.write(`agentcage mcp: ${error instanceof Error ? error.message : String(error)}; every tool call answers so until it ends\n`);
    },
  );
  const server = localMcpServer(started);
  // A message too long is refused, answered and told here; the session goes on.
  const transport = createStdioTransport({ onRefused: (sentence) => io.stderr.write(`agentcage mcp: ${sentence}\n`) });
  const closed = new Promise<string>((resolve) => {
    transport.onclose = () => resolve("stdin closed");
    process.stdin.once("end", () => resolve("stdin closed"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
    io.onInterrupt(() => resolve("SIGINT"));
  });
  await server.connect(transport);
  io.stderr.write(`agentcage mcp: serving MCP on stdio, while its Runs' service starts; Runs under ${options.runtimeDir}\n`);
  const why = await closed;
  io.stderr.write(`agentcage mcp: ${why}: no new Runs; draining\n`);
  // A start still under way ends at once, removing what it had started.
  starting.abort(new Error(why));
  const running = await started.catch(() => undefined);
  await server.close().catch(() => undefined);
  try {
    // The client that asked for the Runs is gone, and gives a server a few seconds before it kills
    // it (the SDK's: 2 s, then SIGTERM, 2 s more, then SIGKILL): its Runs are cancelled at once.
    await running?.stop(0);
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
