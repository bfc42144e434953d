// Bounds of a Run directory: what the caller may hand over as inputs, and what a kept session store
// may hold. Harvest limits live in harvest/limits.ts; how long a kept Run directory or session store
// outlives its use is the declaration's (container/limits.ts: *_RETENTION_DAYS).

const MiB = 1024 * 1024;

/** Entries (files, directories, links) copied into `work/`; past it staging is refused. */
export const MAX_INPUT_ENTRIES = 250_000;
/** Bytes of regular files copied into `work/`. */
export const MAX_INPUT_BYTES = 4096 * MiB;
/** Directory levels below the input directory. */
export const MAX_INPUT_DEPTH = 64;
/** Input files handed to a copy worker at a time (a directory's files, up to this many). */
export const STAGE_COPY_BATCH = 64;

/** A kept session store: the files in it (a CLI's conversation log grows with every turn). */
export const MAX_SESSION_FILE_BYTES = 64 * MiB;
/** A kept session store, all files together. */
export const MAX_SESSION_STORE_BYTES = 256 * MiB;
/** Files and directories in a kept session store. */
export const MAX_SESSION_STORE_ENTRIES = 2000;
/** Directory levels in a kept session store. */
export const MAX_SESSION_STORE_DEPTH = 8;

/** Bytes an agent may write unless staging.writableBytes says otherwise (out/, or work/ beyond its inputs). */
export const DEFAULT_WRITABLE_BYTES = 256 * MiB;
/** Files and directories an agent may make in what it can write. */
export const MAX_WRITABLE_ENTRIES = 100_000;
/** What is left when a writable bound counts as full: less than this many bytes... */
export const FULL_BELOW_BYTES = 64 * 1024;
/** ...or this few inodes. */
export const FULL_BELOW_INODES = 8;
