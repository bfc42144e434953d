// A Run's input files: one uncompressed tar archive, read with tar-stream into the Run's own
// `inputs/` under the Harvest's rules: regular files and directories only; no absolute or `..`
// names, no links, devices or FIFOs; depth, per-file, total and entry limits (limits.ts). A refusal
// names the entry. Invariant: nothing is written outside the directory handed in, every file is
// created new (O_EXCL, never through a link), and the caller removes that directory on a refusal.
//
// How the archive arrives: as the `inputs` part of a multipart POST /v1/runs, after its `request`
// part (the Run request as JSON). Not a second request, because then a Run would exist before its
// inputs: a refused archive would leave a Run to fail, an upload that never comes a Run to time
// out, and the queue, the A2A face and a restart would all need a state for "waiting for inputs".
// In one request a Run exists only once its archive passed (a bad one is the POST's 400),
// Idempotency-Key covers both, and the archive streams into the extractor without being buffered.

import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import multipart, { type Multipart } from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import tar, { type Header } from "tar-stream";
import { AgentcageError } from "../errors/index.js";
import {
  INPUT_UPLOAD_TIMEOUT_MS,
  MAX_BODY_BYTES,
  MAX_INPUT_ARCHIVE_BYTES,
  MAX_INPUT_DEPTH,
  MAX_INPUT_ENTRIES,
  MAX_INPUT_FILE_BYTES,
  MAX_INPUT_NAME_BYTES,
  MAX_INPUT_TOTAL_BYTES,
} from "./limits.js";

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

const DEFAULT_LIMITS: InputLimits = { entries: MAX_INPUT_ENTRIES, depth: MAX_INPUT_DEPTH, fileBytes: MAX_INPUT_FILE_BYTES, totalBytes: MAX_INPUT_TOTAL_BYTES };

export type ExtractOptions = {
  /** Stops the extraction (408) when aborted: an upload's deadline; default never. */
  readonly signal?: AbortSignal;
  /** Tighter bounds, for tests; default the MAX_INPUT_* constants. */
  readonly limits?: Partial<InputLimits>;
  /** Take entries under `out/` too (a writable Run's Harvest holds the agent's own out/); default false: inputs may not name it. */
  readonly takeOut?: boolean;
};

/** The agent's `out/` is staged beside the inputs: an input of that name would pass for the agent's work. */
const OUT_NAME = "out";
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
  if (progress.entries > limits.entries) refuse(name, `is past MAX_INPUT_ENTRIES (${limits.entries} files and directories); send fewer files`);
  const parts = partsOf(name);
  if (!takeOut && parts[0] === OUT_NAME) refuse(name, `is inside ${quote(OUT_NAME)}, where the agent writes; rename it`);
  switch (header.type) {
    case "directory": {
      if (parts.length > limits.depth) refuse(name, `is ${parts.length} directories deep, over MAX_INPUT_DEPTH (${limits.depth}); send a shallower tree`);
      await makeDirectories(root, parts, name, progress);
      // A directory has no data; tar-stream ends its stream only when it is read.
      entry.resume();
      return;
    }
    case "file": {
      if (parts.length === 0) refuse(name, 'names the archive\'s root as a file; name files inside it, like "src/main.ts"');
      if (parts.length - 1 > limits.depth)
        refuse(name, `lies ${parts.length - 1} directories deep, over MAX_INPUT_DEPTH (${limits.depth}); send a shallower tree`);
      if (header.size > limits.fileBytes) refuse(name, `is ${header.size} bytes, over MAX_INPUT_FILE_BYTES (${limits.fileBytes}); leave it out`);
      if (progress.bytes + header.size > limits.totalBytes)
        refuse(name, `takes the archive's files past MAX_INPUT_TOTAL_BYTES (${limits.totalBytes} bytes); send fewer or smaller files`);
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
  if (Buffer.byteLength(name) > MAX_INPUT_NAME_BYTES) refuse(name, `has a name over MAX_INPUT_NAME_BYTES (${MAX_INPUT_NAME_BYTES} bytes); use shorter names`);
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
  if (failure.statusCode === 413) return tooLarge();
  return new InputsError(400, `the inputs part is not a whole, uncompressed tar archive (${failure.message}); make it with tar -cf, not gzipped`);
}

const tooLarge = () =>
  new InputsError(413, `the inputs archive is over ${MAX_INPUT_ARCHIVE_BYTES} bytes (MAX_INPUT_ARCHIVE_BYTES); send fewer or smaller files`);

// The multipart side: the `request` part becomes the body the route's schema validates (so a
// multipart request is refused in the same words as a JSON one), the `inputs` part is handed on.

const pending = new WeakMap<FastifyRequest, AsyncIterator<Multipart>>();

/** Lets the routes of `scope` take multipart requests: one `request` field, then at most one `inputs` file. */
export async function registerInputUploads(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, {
    limits: { fieldNameSize: 100, fieldSize: MAX_BODY_BYTES, fields: 1, files: 1, parts: 2, headerPairs: 100, fileSize: MAX_INPUT_ARCHIVE_BYTES },
  });
}

const PARTS_SAID = "a multipart POST /v1/runs is the part `request` (the Run request as JSON), then optionally the file part `inputs` (a tar archive)";

/** A preValidation hook: in a multipart request, reads the `request` part into `request.body`. */
export async function readRequestPart(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  const parts = request.parts();
  const first = await parts.next();
  const part = first.done === true ? undefined : first.value;
  // A wrong `request` part is a wrong Run request (invalid_request), not refused inputs: a plain 400, as Fastify gives one.
  if (part?.fieldname !== "request") throw Object.assign(new Error(`the first part is not \`request\`; ${PARTS_SAID}`), { statusCode: 400 });
  let text: string;
  if (part.type === "field") {
    if (part.valueTruncated) throw Object.assign(new Error("the request part is too large"), { statusCode: 413 });
    // A field sent as application/json arrives parsed.
    if (typeof part.value !== "string") {
      request.body = part.value;
      pending.set(request, parts);
      return;
    }
    text = part.value;
  } else {
    text = await readBounded(part.file, MAX_BODY_BYTES);
  }
  try {
    request.body = JSON.parse(text);
  } catch {
    throw Object.assign(new Error(`the part \`request\` is not JSON; ${PARTS_SAID}`), { statusCode: 400 });
  }
  pending.set(request, parts);
}

export type InputsUpload = {
  readonly archive: Readable;
  /** Resolves once the request has ended with nothing after `inputs`; rejects naming what came after it. */
  readonly finish: () => Promise<void>;
  /** Reads and drops the archive: for a request answered without it (a known Idempotency-Key, a full queue). */
  readonly discard: () => void;
};

/** The `inputs` part of a multipart request whose `request` part was read; undefined when there is none. */
export async function takeInputsPart(request: FastifyRequest): Promise<InputsUpload | undefined> {
  const parts = pending.get(request);
  if (parts === undefined) return undefined;
  pending.delete(request);
  let next: IteratorResult<Multipart>;
  try {
    next = await parts.next();
  } catch (error) {
    throw new InputsError(400, `the part after \`request\` could not be read (${(error as Error).message}); ${PARTS_SAID}`);
  }
  if (next.done === true) return undefined;
  const part = next.value;
  if (part.type !== "file" || part.fieldname !== "inputs") {
    if (part.type === "file") part.file.resume();
    throw new InputsError(400, `the part after \`request\` is ${JSON.stringify(part.fieldname)}; ${PARTS_SAID}`);
  }
  const archive = part.file;
  archive.on("limit", () => archive.destroy(tooLarge()));
  return {
    archive,
    discard: () => void archive.resume(),
    finish: async () => {
      let after: IteratorResult<Multipart>;
      try {
        after = await parts.next();
      } catch (error) {
        throw new InputsError(400, `the request goes on after \`inputs\` (${(error as Error).message}); ${PARTS_SAID}`);
      }
      if (after.done !== true) throw new InputsError(400, `the request goes on after \`inputs\` with ${JSON.stringify(after.value.fieldname)}; ${PARTS_SAID}`);
    },
  };
}

/** A deadline for one upload: INPUT_UPLOAD_TIMEOUT_MS. */
export function uploadDeadline(): AbortSignal {
  return AbortSignal.timeout(INPUT_UPLOAD_TIMEOUT_MS);
}

/** Reads a part of at most `max` bytes; a longer one is read to its end and dropped (so the caller can still answer), then refused. */
async function readBounded(stream: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size <= max) chunks.push(chunk);
  }
  if (size > max) throw Object.assign(new Error("the request part is too large"), { statusCode: 413 });
  return Buffer.concat(chunks).toString("utf8");
}
