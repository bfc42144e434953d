// What a Harvest answers, as part of the Outcome contract: what was copied, or the one entry
// and rule that refused it. The Harvest itself lives in src/staging/harvest; this is its result.

/** Where the agent leaves what it made, at the top of its work/: the directory a Harvest copies back. */
export const OUT_NAME = "out";

/** Every rule a Harvest can refuse an entry by; a refusal copies nothing. */
export const HARVEST_REFUSAL_REASONS = [
  "symlink",
  "hardlink",
  "special_file",
  "special_mode",
  "unreadable",
  "too_deep",
  "file_too_large",
  "total_too_large",
  "too_many_entries",
  "bad_name",
  "source_missing",
  "destination_is_symlink",
  /** The destination holds something and the caller did not ask to replace it. */
  "destination_not_empty",
  "io_error",
  /** The Run's deadline passed, or its caller cancelled, while the Harvest copied. */
  "interrupted",
  /**
   * A file or directory changed while the Harvest read it (another inode, size or modification
   * time than when it was inspected): something still writes to the source.
   */
  "changed_during_harvest",
] as const;

/** Which rule refused a Harvest (one of HARVEST_REFUSAL_REASONS). */
export type HarvestRefusalReason = (typeof HARVEST_REFUSAL_REASONS)[number];

/** Why a Harvest copied nothing: the one entry and the rule it broke, and a sentence saying what to do. */
export type HarvestRefusal = {
  readonly reason: HarvestRefusalReason;
  /**
   * The entry's path relative to the source, as a JSON string literal of its bytes decoded as
   * UTF-8 (invalid bytes as `\xNN`); `"."` for the source or the destination as a whole.
   */
  readonly entry: string;
  /** One sentence naming the entry (and the limit constant, where there is one) and what to do instead. */
  readonly message: string;
};

/** What an agent changed in a writable work/, relative to what was staged (paths relative to work/). */
export type ChangeSummary = {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly deleted: readonly string[];
  /** Changed, added or deleted paths that changes.patch leaves out: binary, or too large to diff. */
  readonly undiffed: readonly string[];
  /**
   * Paths whose part of changes.patch holds bidi controls or marks (U+202A-E, U+2066-9, U+200E/F,
   * U+061C) or control characters but tab, newline and CRLF: a line of it may read differently from
   * what applies. Absent when there are none (and in change sets recorded before it was checked).
   */
  readonly bidiOrControl?: readonly string[];
  /** Bytes of the added and changed files. */
  readonly bytes: number;
  /** Files the agent left in its own out/, harvested beside the change set as out/ (never in the patch); set by harvestChanges. */
  readonly outFiles?: number;
};

/** What a Harvest answers: what it copied (`ok: true`), or the refusal that copied nothing. Never thrown. */
export type HarvestResult =
  | {
      readonly ok: true;
      readonly files: number;
      readonly directories: number;
      readonly bytes: number;
      /** With a writable work/: what the agent changed, harvested as files/, changes.patch and changes.json. */
      readonly changes?: ChangeSummary;
    }
  | { readonly ok: false; readonly refusal: HarvestRefusal };
