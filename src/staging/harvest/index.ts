/**
 * Harvest: copying what the agent left in its `out/` back to the caller, under limits, all or
 * nothing. Only regular files and directories pass; anything else, or any limit broken, refuses the
 * whole harvest and leaves the destination as it was, and so does a file or directory that changes
 * while it is copied. A harvest whose process died mid-install is rolled back by the next harvest to
 * that destination, or by recoverHarvest(destination) at start-up.
 *
 * ```ts
 * const result = await harvest("/srv/agentcage/runs/0123456789abcdef/work/out", "/home/me/answer");
 * if (result.ok) console.log(`${result.files} files, ${result.bytes} bytes`);
 * else console.error(result.refusal.reason, result.refusal.entry, result.refusal.message);
 * ```
 */
export type { HarvestLimits, HarvestOptions } from "./arguments.js";
export type { HarvestRecovery } from "./recover.js";
export { HarvestArgumentError } from "./arguments.js";
export { harvest } from "./harvest.js";
export { recoverHarvest } from "./recover.js";
export { overlapsAsWritten, pathsOverlap } from "./overlap.js";
export { printableName } from "./printable-name.js";
export {
  MAX_HARVEST_DEPTH,
  MAX_HARVEST_ENTRIES,
  MAX_HARVEST_FILE_BYTES,
  MAX_HARVEST_TOTAL_BYTES,
} from "./limits.js";
