/**
 * What an agent changed in a writable work/: a manifest taken when the Run starts, and the
 * added, changed and deleted paths with a unified diff collected once it is over.
 *
 * ```ts
 * const manifest = await takeManifest(work);   // after staging
 * // ... the Run ...
 * const summary = await collectChanges(work, manifest, { directory: inputs }, changesDir);
 * ```
 */
export type { Manifest } from "./manifest.js";
export type { Originals } from "./changes.js";
export { carryManifest, takeManifest } from "./manifest.js";
export { ChangesRefused, collectChanges, harvestChanges } from "./changes.js";
