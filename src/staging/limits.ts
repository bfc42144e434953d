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

// An inputs archive (one uncompressed tar, as the service takes a Run's input files), held to the
// Harvest's rules (archive-extract.ts). Narrower than MAX_INPUT_* above, which bound a directory on
// this host; a little wider than the Harvest's (8 levels, 8 MiB a file, 64 MiB and 2000 entries):
// inputs are a checkout an agent reads, deeper and with more files than what it writes.

/** The archive as uploaded, headers and padding included; past it the upload is refused (413). */
export const MAX_INPUT_ARCHIVE_BYTES = 80 * MiB;
/** Bytes of one file in the archive, checked on its header before a byte of it is written. */
export const MAX_ARCHIVE_FILE_BYTES = 16 * MiB;
/** Bytes of all files in the archive together. */
export const MAX_ARCHIVE_TOTAL_BYTES = 64 * MiB;
/** Entries (files and directories) in the archive. */
export const MAX_ARCHIVE_ENTRIES = 5_000;
/** Directories above a file, or a directory's own level: `a/b/c.txt` is 2 deep, the directory `a/b/` 2. */
export const MAX_ARCHIVE_DEPTH = 16;
/** Bytes of a whole entry name; each part of it is also held to NAME_MAX (255 bytes). */
export const MAX_ARCHIVE_NAME_BYTES = 1024;
/** How long an upload may take; a slower one holds a place in the queue, and is refused (408). */
export const INPUT_UPLOAD_TIMEOUT_MS = 5 * 60_000;
