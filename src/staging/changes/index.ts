/**
 * What an agent changed in a writable work/: a manifest taken when the Run starts, and the
 * added, changed and deleted paths with a unified diff collected once it is over.
 *
 * ```ts
 * const manifest = await takeManifest(work);   // after staging
 * // ... the Run ...
 * const harvested = await harvestChanges(work, { manifest, originals: { directory: inputs } }, changesDir, destination);
 * ```
 */
export type { Manifest } from "./manifest.js";
export { carryManifest, takeManifest } from "./manifest.js";
export { harvestChanges } from "./changes.js";
export { BIDI_CLASS } from "./bidi-or-control.js";
