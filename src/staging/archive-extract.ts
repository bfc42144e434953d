// An inputs archive (one uncompressed tar) read with tar-stream into a directory of its own under
// the Harvest's rules: regular files and directories only; no absolute or `..` names, no links,
// devices or FIFOs; depth, per-file, total and entry limits (limits.ts: MAX_ARCHIVE_*). A refusal
// names the entry. Invariant: nothing is written outside the directory handed in, every file is
// created new (O_EXCL, never through a link), and the caller removes that directory on a refusal.
// The service reads a Run's uploaded inputs with it, and `agentcage run --remote` its artifacts.

import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import tar, { type Header } from "tar-stream";
import { AgentcageError } from "../errors/index.js";
import {
  INPUT_UPLOAD_TIMEOUT_MS,
  MAX_ARCHIVE_DEPTH,
  MAX_ARCHIVE_ENTRIES,
  MAX_ARCHIVE_FILE_BYTES,
  MAX_ARCHIVE_NAME_BYTES,
  MAX_ARCHIVE_TOTAL_BYTES,
  MAX_INPUT_ARCHIVE_BYTES,
} from "./limits.js";
import { OUT_NAME } from "../plan/index.js";

/** Why the inputs were refused: `statusCode` is the HTTP answer (400 a bad archive, 408 too slow, 413 too large). */
export class InputsError extends AgentcageError {
  override readonly name = "InputsError";
  readonly code = "invalid_inputs";
  constructor(
    readonly statusCode: 400 | 408 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** What an accepted archive held: its files, its directories (named or implied), and the files' bytes. */
export type InputsSummary = { readonly files: number; readonly directories: number; readonly bytes: number };

export type InputLimits = {
  readonly entries: number;
  readonly depth: number;
  readonly fileBytes: number;
  readonly totalBytes: number;
};

const DEFAULT_LIMITS: InputLimits = {
  entries: MAX_ARCHIVE_ENTRIES,
  depth: MAX_ARCHIVE_DEPTH,
  fileBytes: MAX_ARCHIVE_FILE_BYTES,
  totalBytes: MAX_ARCHIVE_TOTAL_BYTES,
};

export type ExtractOptions = {
  /** Stops the extraction (408) when aborted: an upload's deadline; default never. */
  readonly signal?: AbortSignal;
  /** Tighter bounds, for tests; default the MAX_ARCHIVE_* constants. */
  readonly limits?: Partial<InputLimits>;
  /** Take entries under `out/` too (a writable Run's Harvest holds the agent's own out/); default false: inputs may not name it. */
  readonly takeOut?: boolean;
};

// The agent's `out/` is staged beside the inputs (OUT_NAME): an input of that name would pass for the agent's work.
/** Linux NAME_MAX: one part of a name. */
const MAX_NAME_PART_BYTES = 255;

const FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

type Progress = { entries: number; files: number; bytes: number; readonly made: Set<string> };

/**
 * Extracts `archive` into `directory`, which must not exist yet (it is made, 0700). Resolves with
 * what it held; rejects with an InputsError naming the first entry that broke a rule, after which
 * the rest of `archive` is read and dropped (the caller can still answer) and `directory` holds a
 * part of the archive: the caller removes it.
 */
export async function extractInputs(archive: Readable, directory: string, options: ExtractOptions = {}): Promise<InputsSummary> {
  const limits: InputLimits = { ...DEFAULT_LIMITS, ...options.limits };
  // An upload that failed before it was handed here (cut at its bound as it came in one piece) is refused as it failed.
  if (archive.errored !== null) throw refusalOf(archive.errored);
  await mkdir(directory, { mode: 0o700 });
  const extract = tar.extract();
  // A failure of the upload (cut short, over its size) ends the extraction with that failure.
  archive.on("error", (error: Error) => extract.destroy(error));
  const onAbort = () => {
    const error = new InputsError(
      408,
      `the inputs archive took longer than ${INPUT_UPLOAD_TIMEOUT_MS} ms (INPUT_UPLOAD_TIMEOUT_MS) to arrive; send it faster, or fewer files`,
    );
    archive.destroy(error);
    extract.destroy(error);
  };
  if (options.signal?.aborted === true) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // tar-stream's extractor is a streamx Writable, which Node's pipe writes to as to its own.
  archive.pipe(extract as unknown as NodeJS.WritableStream);
  const progress: Progress = { entries: 0, files: 0, bytes: 0, made: new Set() };
  try {
    for await (const entry of extract) await take(entry, directory, limits, progress, options.takeOut === true);
  } catch (error) {
    archive.unpipe(extract as unknown as NodeJS.WritableStream);
    if (!archive.destroyed) archive.resume();
    throw refusalOf(error);
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  return { files: progress.files, directories: progress.made.size, bytes: progress.bytes };
}

/** One entry as tar-stream yields it: its header, then its data (Buffers). */
type Entry = AsyncIterable<unknown> & { readonly header: Header; resume(): unknown };

async function take(entry: Entry, root: string, limits: InputLimits, progress: Progress, takeOut: boolean): Promise<void> {
  const { header } = entry;
  const name = header.name;
  progress.entries += 1;
  if (progress.entries > limits.entries) refuse(name, `is past MAX_ARCHIVE_ENTRIES (${limits.entries} files and directories); send fewer files`);
  const parts = partsOf(name);
  if (!takeOut && parts[0] === OUT_NAME) refuse(name, `is inside ${quote(OUT_NAME)}, where the agent writes; rename it`);
  switch (header.type) {
    case "directory": {
      if (parts.length > limits.depth) refuse(name, `is ${parts.length} directories deep, over MAX_ARCHIVE_DEPTH (${limits.depth}); send a shallower tree`);
      await makeDirectories(root, parts, name, progress);
      // A directory has no data; tar-stream ends its stream only when it is read.
      entry.resume();
      return;
    }
    case "file": {
      if (parts.length === 0) refuse(name, 'names the archive\'s root as a file; name files inside it, like "src/main.ts"');
      if (parts.length - 1 > limits.depth)
        refuse(name, `lies ${parts.length - 1} directories deep, over MAX_ARCHIVE_DEPTH (${limits.depth}); send a shallower tree`);
      if (header.size > limits.fileBytes) refuse(name, `is ${header.size} bytes, over MAX_ARCHIVE_FILE_BYTES (${limits.fileBytes}); leave it out`);
      if (progress.bytes + header.size > limits.totalBytes)
        refuse(name, `takes the archive's files past MAX_ARCHIVE_TOTAL_BYTES (${limits.totalBytes} bytes); send fewer or smaller files`);
      progress.bytes += header.size;
      await makeDirectories(root, parts.slice(0, -1), name, progress);
      await writeNewFile(join(root, ...parts), entry, name);
      progress.files += 1;
      return;
    }
    case "symlink":
      return refuse(name, `is a symbolic link (to ${quote(header.linkname ?? "")}); links are refused: put the file itself in the archive`);
    case "link":
      return refuse(name, `is a hard link (to ${quote(header.linkname ?? "")}); links are refused: put the file itself in the archive`);
    case "character-device":
    case "block-device":
      return refuse(name, `is a ${header.type}; only regular files and directories are taken: leave it out`);
    case "fifo":
      return refuse(name, "is a FIFO; only regular files and directories are taken: leave it out");
    default:
      return refuse(name, `is of type ${quote(String(header.type))}, not a regular file or directory; leave it out`);
  }
}

/** The parts of an entry's name below the archive's root; "." parts and a trailing "/" dropped, anything else refused. */
function partsOf(name: string): string[] {
  if (name === "" || name.includes("\0")) refuse(name, 'has an empty name or a NUL byte in it; name entries like "src/main.ts"');
  if (Buffer.byteLength(name) > MAX_ARCHIVE_NAME_BYTES)
    refuse(name, `has a name over MAX_ARCHIVE_NAME_BYTES (${MAX_ARCHIVE_NAME_BYTES} bytes); use shorter names`);
  if (name.startsWith("/")) refuse(name, 'is an absolute name; name entries relative to the archive\'s root, like "src/main.ts" (tar -C DIR -cf inputs.tar .)');
  const all = name.split("/");
  if (all.includes("..")) refuse(name, 'climbs out of the archive with ".."; name entries inside it, like "src/main.ts"');
  const parts = all.filter((part) => part !== "" && part !== ".");
  const long = parts.find((part) => Buffer.byteLength(part) > MAX_NAME_PART_BYTES);
  if (long !== undefined) refuse(name, `has a part over ${MAX_NAME_PART_BYTES} bytes (${quote(long)}); use shorter names`);
  return parts;
}

/** Makes each directory of `parts` not made yet; a part the archive made a file refuses `name`. */
async function makeDirectories(root: string, parts: readonly string[], name: string, progress: Progress): Promise<void> {
  for (let i = 1; i <= parts.length; i++) {
    const relative = parts.slice(0, i).join("/");
    if (progress.made.has(relative)) continue;
    const path = join(root, relative);
    try {
      await mkdir(path, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // Only this extraction writes here, so what exists is a file an earlier entry made.
      if (!(await lstat(path)).isDirectory()) refuse(name, `lies under ${quote(relative)}, which the archive made a file; put each name in the archive once`);
    }
    progress.made.add(relative);
  }
}

/** Writes one entry's data to a file that must not exist yet, never through a link. */
async function writeNewFile(path: string, data: AsyncIterable<unknown>, name: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, FILE_FLAGS, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ELOOP" || code === "EISDIR") refuse(name, "names what the archive already holds; put each name in the archive once");
    throw error;
  }
  try {
    for await (const value of data) {
      const chunk = value as Uint8Array;
      let offset = 0;
      while (offset < chunk.byteLength) offset += (await handle.write(chunk, offset, chunk.byteLength - offset)).bytesWritten;
    }
  } finally {
    await handle.close();
  }
}

function refuse(name: string, rule: string): never {
  throw new InputsError(400, `inputs entry ${quote(name)} ${rule}`);
}

/** A name as a JSON string literal, cut short past 200 characters: a message names the entry, it does not echo a megabyte. */
function quote(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}...` : name);
}

/** The archive's own failures (not a tar, cut short, too large, too slow) in the service's words; the disk's are not the caller's. */
function refusalOf(error: unknown): unknown {
  if (error instanceof InputsError) return error;
  const failure = error as Error & { syscall?: unknown; statusCode?: unknown };
  if (typeof failure.syscall === "string") return error;
  if (failure.statusCode === 413) return inputsTooLarge();
  return new InputsError(400, `the inputs part is not a whole, uncompressed tar archive (${failure.message}); make it with tar -cf, not gzipped`);
}

/** The refusal of an archive past MAX_INPUT_ARCHIVE_BYTES, however its size was found out. */
export const inputsTooLarge = (): InputsError =>
  new InputsError(413, `the inputs archive is over ${MAX_INPUT_ARCHIVE_BYTES} bytes (MAX_INPUT_ARCHIVE_BYTES); send fewer or smaller files`);
