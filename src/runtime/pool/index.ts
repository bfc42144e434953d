// The warm pool: members started ahead of a Run, claimed by one, and the cold launch beside it.
// Invariant: knows no Run's steps; exports only, no code.
export type { ColdLaunch } from "./cold-launch.js";
export { coldLaunchOf } from "./cold-launch.js";
export type { Claim } from "./pool-launcher.js";
export { CLAIM_MAGIC, HEAD_START_MAGIC, TMPFS_SECRET_NAME, encodeClaim, encodeHeadStart, tmpfsSecretCommand } from "./pool-launcher.js";
export type { HeadStartPlan, Member } from "./pool-member.js";
export { POOL_LABEL } from "./pool-member.js";
export type { Pool } from "./pool.js";
export { createPool } from "./pool.js";
export type { PoolOptions } from "./pool-options.js";
export { DEFAULT_POOL_IDLE_SECONDS, MAX_POOL_IDLE_SECONDS, MAX_POOL_SIZE, POOL_DEGRADED_IN_A_ROW, checkPoolOptions } from "./pool-options.js";
export type { PoolStats } from "./pool-stats.js";
