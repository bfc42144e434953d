// Every bound a Harvest is held to, in one place, with the unit in the name.
// A new bound gets a constant here and a refusal reason whose message names it; the defaults
// apply whenever the caller does not override them through harvest()'s third argument.

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Directory levels below the source: the source's direct children are level 1, so a directory
 * reached through 9 directories (`d1/.../d9`) is refused; files may sit in any allowed directory.
 */
export const MAX_HARVEST_DEPTH = 8;
/** Bytes in one harvested file, checked on its size before reading; no more than that size is ever read. */
export const MAX_HARVEST_FILE_BYTES = 8 * MiB;
/** Bytes in all harvested files together. */
export const MAX_HARVEST_TOTAL_BYTES = 64 * MiB;
/** Files plus directories below the source (the source itself not counted). */
export const MAX_HARVEST_ENTRIES = 2000;

/** Bytes read and written per system call while copying one file; a tuning value, not a limit. */
export const HARVEST_COPY_CHUNK_BYTES = 256 * KiB;
/** File copies in flight at once (each holds two descriptors and one copy chunk); a tuning value. */
export const HARVEST_PARALLEL_FILES = 16;
