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
/** Bytes in one harvested file, checked on its lstat and again on the open file before it is copied; a file that changes while it is copied is refused. */
export const MAX_HARVEST_FILE_BYTES = 8 * MiB;
/** Bytes in all harvested files together. */
export const MAX_HARVEST_TOTAL_BYTES = 64 * MiB;
/** Files plus directories below the source (the source itself not counted). */
export const MAX_HARVEST_ENTRIES = 2000;

/** Bytes read and written per system call while copying one file, and the size past which the kernel copies it instead; a tuning value, not a limit. */
export const HARVEST_COPY_CHUNK_BYTES = 256 * KiB;
/** Worker threads that copy files (each holds one copy chunk), shared by every harvest of the process; a tuning value. */
export const HARVEST_COPY_WORKERS = 2;
/** A batch handed to a copy worker closes at this many files or this many bytes, so large files spread over the workers; tuning values. */
export const HARVEST_COPY_BATCH_FILES = 64;
export const HARVEST_COPY_BATCH_BYTES = 8 * MiB;
/** Batches one harvest has in flight at once (each file of them holds two descriptors while it is copied); a tuning value. */
export const HARVEST_COPY_BATCHES_IN_FLIGHT = 4;
/** Records of the source's listing handed to the walk at a time, so the copies start before the listing ends; a tuning value. */
export const HARVEST_LISTING_PART_RECORDS = 64;
/** Records the listing may make past those the walk has taken before it waits, so a refusal the walk meets stops it near there; a tuning value. */
export const HARVEST_LISTING_AHEAD_RECORDS = 4 * HARVEST_LISTING_PART_RECORDS;
