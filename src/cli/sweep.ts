// `agentcage sweep`: removes what agentcage processes that are gone left behind (their containers
// and Run directories) and the session stores unused for longer than their retention, never what a
// live one still uses; says what it removed, in sentences (the library's JSON log only with --verbose).

import { pino } from "pino";
import { createAgentRunner } from "../runner/index.js";
import { STAND_IN_IMAGE, STAND_IN_OWNER } from "../stand-in/index.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import { join } from "node:path";

export async function sweep(
  options: { readonly runtimeDir: string; readonly image: string; readonly sessionRetentionDays?: number; readonly verbose?: boolean },
  io: ProgramIo,
): Promise<number> {
  const retention = options.sessionRetentionDays === undefined ? {} : { sessionRetentionDays: options.sessionRetentionDays };
  const logger = pino({ name: "agentcage", level: options.verbose === true ? "info" : "silent" }, pino.destination(2));
  const runner = createAgentRunner({ image: options.image, staging: { runtimeDir: join(options.runtimeDir, "staging"), ...retention }, logger });
  const checked = await runner.check();
  if (!checked.engine) {
    io.stderr.write("agentcage sweep: the container engine does not answer; start it (or set DOCKER_HOST), then sweep again\n");
    return EXIT.unavailable;
  }
  // The stand-in models that gone processes started (serve --stand-in, run --stand-in) carry an owner of their own.
  const standIns = createAgentRunner({ image: STAND_IN_IMAGE, owner: STAND_IN_OWNER, logger });
  const [agents, models] = await Promise.all([runner.sweep(), standIns.sweep()]);
  const swept = { removed: [...agents.removed, ...models.removed], removedRunDirectories: agents.removedRunDirectories };
  io.stdout.write(
    `removed ${swept.removed.length} container${swept.removed.length === 1 ? "" : "s"} and ${swept.removedRunDirectories.length} Run director${swept.removedRunDirectories.length === 1 ? "y" : "ies"}\n`,
  );
  for (const id of swept.removed) io.stdout.write(`  container ${id.slice(0, 12)}\n`);
  for (const id of swept.removedRunDirectories) io.stdout.write(`  run ${id}\n`);
  const stores = agents.removedSessionStores;
  if (stores.length > 0) io.stdout.write(`removed ${stores.length} session store${stores.length === 1 ? "" : "s"} unused for longer than their retention\n`);
  for (const { namespace, id, lastUsedAt } of stores) io.stdout.write(`  session ${namespace}/${id} (last used ${lastUsedAt})\n`);
  return EXIT.completed;
}
