// `agentcage sweep`: removes what agentcage processes that are gone left behind (their containers
// and Run directories), never what a live one still uses; says what it removed.

import { createAgentRunner } from "../agents/index.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./program.js";
import { join } from "node:path";

export async function sweep(options: { readonly runtimeDir: string; readonly image: string }, io: ProgramIo): Promise<number> {
  const runner = createAgentRunner({ image: options.image, staging: { runtimeDir: join(options.runtimeDir, "staging") } });
  const checked = await runner.check();
  if (!checked.engine) {
    io.stderr.write("agentcage sweep: the container engine does not answer; start it (or set DOCKER_HOST), then sweep again\n");
    return EXIT.unavailable;
  }
  const swept = await runner.sweep();
  io.stdout.write(`removed ${swept.removed.length} container${swept.removed.length === 1 ? "" : "s"} and ${swept.removedRunDirectories.length} Run director${swept.removedRunDirectories.length === 1 ? "y" : "ies"}\n`);
  for (const id of swept.removed) io.stdout.write(`  container ${id.slice(0, 12)}\n`);
  for (const id of swept.removedRunDirectories) io.stdout.write(`  run ${id}\n`);
  return EXIT.completed;
}
