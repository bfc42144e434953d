/**
 * Liveness: telling a slow peer from a dead one (slow is not dead: docs/operations.md). A wait that is not a user's
 * deadline is stretched by the machine's load (`patientTimer`, `withinPatience`, `scaledMs`), and
 * a peer is given up only when its own check shows it gone (`whileAlive`), never because it was late.
 * A leaf: it imports nothing of the project.
 *
 * @example
 * const meter = await whileAlive(proxy.meter(runId), {
 *   checkEveryMs: 2000,
 *   gone: async () => ((await engine.inspect(proxy.container))?.running ? undefined : "is not running"),
 *   onSlow: (waitedMs) => log.warn({ waitedMs }, "the egress proxy is slow to answer"),
 * });
 */
export { loadFactor, readLoadWith, scaledMs } from "./load.js";
export type { HitBound } from "./patient-bound.js";
export { describeBound, patientTimer, withinPatience } from "./patient-bound.js";
export { GoneError, whileAlive } from "./while-alive.js";
export { MAX_LOAD_FACTOR } from "./limits.js";
