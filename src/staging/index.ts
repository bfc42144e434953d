/**
 * The Staging Directory: one directory per Run with the caller's inputs in `work/` (read-only),
 * the agent's `out/`, the Run record (masked as it is written), and the Harvest of `out/` back to
 * the caller; the disk sweep of what a crashed process left, and of kept Runs and session stores
 * past their retention.
 *
 * ```ts
 * const result = await harvest("/srv/agentcage/0123456789abcdef/work/out", "/srv/results/review-42");
 * if (!result.ok) console.error(result.refusal.message);
 * ```
 */
export type { RunInputs } from "./inputs.js";
export type { RunDirectory, SecretFile } from "./layout.js";
export type { RecordStream } from "./record.js";
export type { SweptSessionStore } from "./session-sweep.js";
export { StagingError } from "./inputs.js";
export * from "./exclude/index.js";
export { numericUser, prepareRunDirectory } from "./prepare.js";
export { copyFromArchive } from "./archive-copy.js";
export { measureTree, packTree } from "./archive-pack.js";
export { RUN_ID_PATTERN, runDirectory, sessionStorePath, stagedMounts } from "./layout.js";
export { canBoundWrites, releaseWritable, unmountUnder, writableFull } from "./writable.js";
export { keepSessionStore, openSessionStore, SESSION_NAME, sessionStoreExists, touchSessionStore } from "./sessions.js";
export { sweepSessionStores } from "./session-sweep.js";
export { createRecordStream, writeAtomically } from "./record.js";
export { removeTree } from "./remove-tree.js";
export { sweepRunDirectories } from "./sweep.js";
export * from "./harvest/index.js";
export type { Manifest } from "./changes/index.js";
export { BIDI_CLASS, carryManifest, harvestChanges, takeManifest } from "./changes/index.js";
export { extractInputs, InputsError, inputsTooLarge } from "./archive-extract.js";
export { listArtifacts, openArtifact, packArtifacts, packInputs } from "./harvest-files.js";
export {
  INPUT_UPLOAD_TIMEOUT_MS,
  MAX_INPUT_ARCHIVE_BYTES,
} from "./limits.js";
export * as stagingLimits from "./limits.js";
export { DEFAULT_WRITABLE_BYTES } from "./limits.js";
