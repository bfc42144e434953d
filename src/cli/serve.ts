// `agentcage serve`: starts the service and drains it on SIGTERM or Ctrl-C (no new Runs; running
// ones get the drain grace, then are cancelled), then exits 0.

import { serve, ServeError, type ServeOptions } from "../server/index.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";

export async function serveCommand(options: ServeOptions, io: ProgramIo): Promise<number> {
  let running;
  try {
    running = await serve(options);
  } catch (error) {
    if (error instanceof ServeError) throw new UsageError(error.message);
    throw error;
  }
  io.stderr.write(`agentcage serve: listening on ${running.url}${running.tokenFile === undefined ? "" : `; token in ${running.tokenFile}`}\n`);
  io.stderr.write(`agentcage serve: the console is at ${new URL("/", running.url).href} (sign in with that token, or a tenant's key)\n`);
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      io.stderr.write(`agentcage serve: ${signal}: no new Runs; draining\n`);
      running.stop().then(
        () => resolve(EXIT.completed),
        (error: unknown) => {
          io.stderr.write(`agentcage serve: the drain failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(EXIT.failed);
        },
      );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    io.onInterrupt(() => stop("SIGINT"));
  });
}
