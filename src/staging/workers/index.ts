/**
 * Worker threads for the file-system work that is many small synchronous calls (copying a checkout,
 * walking one): the calls run back to back in a worker instead of one trip each through libuv's
 * thread pool.
 *
 * ```ts
 * const pool = createWorkerPool("agentcage-walk", 2, () => (path: string) => require("node:fs").lstatSync(path).size);
 * const size = await pool.run("/etc/hostname");
 * ```
 */

export { createWorkerPool } from "./pool.js";
