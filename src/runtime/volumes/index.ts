// A Run's volumes: the out/ volume and the writable places, filled and copied back.
// Invariant: exports only, no code.
export type { CollectedVolume, RunVolumeKind, RunVolumeSpec, RunVolumes } from "./out-volume.js";
export { RUN_VOLUME_KINDS, openRunVolumes, outVolumeName, runVolumeName, volumeHolderName } from "./out-volume.js";
export { PLACE, copyBackArchive } from "./volume-collect.js";
