// Bounds of collecting what an agent changed in a writable work/. What the Harvest then copies is
// bounded by the Harvest's own limits (entries, bytes, depth); these bound the diff.

/** A text file larger than this (either side) is listed as changed but not diffed into changes.patch. */
export const MAX_DIFF_FILE_BYTES = 1024 * 1024;
/** How much of a file is searched for a NUL byte to call it binary (as git does). */
export const BINARY_SNIFF_BYTES = 8000;
/** Directory levels of work/ walked for changes: an input may be this deep (MAX_INPUT_DEPTH). */
export const MAX_CHANGES_DEPTH = 64;
/** The longest one file's diff may take before the file is listed as undiffed instead (it runs on the shared event loop). */
export const DIFF_TIMEOUT_MS = 1000;
