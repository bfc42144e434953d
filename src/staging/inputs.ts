// Copies what the caller hands over into a Run's `work/`: a directory tree and/or named files.
// Never follows a link in the source (a link is copied as a link), never copies a special file or
// a hard link (a file of more than one name, whose bytes may be a file's outside the source),
// and never lets an input take the agent's `out/`; leaves out what `exclude` names. Bounded by the
// limits in limits.ts.

import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, opendir, readlink, symlink, writeFile, type FileHandle } from "node:fs/promises";
import { isAbsolute, join, posix } from "node:path";
import { AgentcageError } from "../errors/index.js";
// The agent writes in OUT_NAME; an input of that name would be harvested as if the agent wrote it.
import { OUT_NAME } from "../plan/index.js";
import { copyBatch, countOnBudget, newByteBudget, type ByteBudget, type CopyResult, type CopyTask } from "./copy-pool.js";
import { excludedBy, excludeProblem, type Excluded } from "./exclude/index.js";
import { MAX_INPUT_BYTES, MAX_INPUT_DEPTH, MAX_INPUT_ENTRIES, STAGE_COPY_BATCH } from "./limits.js";

/** What the caller hands a Run to work on: a directory and/or named files, copied into its `work/` (never mounted). Needs `staging`. */
export type RunInputs = {
  /** A directory to copy into `work/`; never modified, never mounted. */
  readonly directory?: string;
  /** Files to write into `work/`, by path relative to it. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
  /**
   * Paths of `directory` to leave out: globs matched against each entry's path relative to it
   * (`"node_modules"` is only the top-level one; `**` and a slash before it make it every one).
   * What is left out is neither copied nor, with a writable work/, reported as changed.
   */
  readonly exclude?: readonly string[];
};

/** Why staging refused: the caller's inputs (`invalid_input`) or the host's disk (`io`). */
export class StagingError extends AgentcageError {
  override readonly name = "StagingError";
  readonly code: "invalid_inputs" | "staging_failed";
  constructor(
    readonly kind: "invalid_input" | "io",
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = kind === "invalid_input" ? "invalid_inputs" : "staging_failed";
  }
}

type Budget = { entries: number; readonly bytes: ByteBudget };

export type CopyOptions = {
  /** Mode of copied regular files: 0o444 for read-only inputs, 0o644 when work/ is writable. */
  readonly fileMode: number;
  /** Stops the copy at the next entry when aborted (the Run's deadline or the caller's cancel); default: never. */
  readonly signal?: AbortSignal;
};

/** Copies `source` into the existing directory `work`, returning the entries and bytes copied. */
export async function copyInputs(inputs: RunInputs, work: string, options: CopyOptions): Promise<{ entries: number; bytes: number }> {
  const excludeRefusal = excludeProblem(inputs.exclude, inputs);
  if (excludeRefusal !== undefined) throw new StagingError("invalid_input", excludeRefusal);
  const budget: Budget = { entries: 0, bytes: newByteBudget(MAX_INPUT_BYTES) };
  if (inputs.directory !== undefined) await copyDirectory(inputs.directory, work, options, budget, excludedBy(inputs.exclude ?? []));
  for (const [relative, content] of Object.entries(inputs.files ?? {})) {
    options.signal?.throwIfAborted();
    await writeInputFile(work, relative, content, options, budget);
  }
  return { entries: budget.entries, bytes: Number(budget.bytes.counted[0]) };
}

function count(budget: Budget, entry: string, bytes = 0): void {
  budget.entries += 1;
  countBytes(budget, entry, bytes);
  if (budget.entries > MAX_INPUT_ENTRIES) {
    throw new StagingError(
      "invalid_input",
      `inputs have more than ${MAX_INPUT_ENTRIES} entries (MAX_INPUT_ENTRIES) at ${JSON.stringify(entry)}; hand over a smaller tree`,
    );
  }
}

function countBytes(budget: Budget, entry: string, bytes: number): void {
  if (!countOnBudget(budget.bytes, bytes)) throw overBudget(entry);
}

function overBudget(entry: string): StagingError {
  return new StagingError("invalid_input", `inputs pass ${MAX_INPUT_BYTES} bytes (MAX_INPUT_BYTES) at ${JSON.stringify(entry)}; hand over a smaller tree`);
}

async function copyDirectory(source: string, work: string, options: CopyOptions, budget: Budget, excluded: Excluded): Promise<void> {
  if (!isAbsolute(source)) {
    throw new StagingError("invalid_input", `input directory ${JSON.stringify(source)} is not absolute; pass an absolute path`);
  }
  const top = await lstat(source).catch((error: NodeJS.ErrnoException) => {
    throw new StagingError("invalid_input", `input directory ${JSON.stringify(source)} cannot be read (${error.code}); pass an existing directory`);
  });
  if (!top.isDirectory()) {
    throw new StagingError("invalid_input", `input directory ${JSON.stringify(source)} is not a directory (links are not followed); pass the directory itself`);
  }
  const copies: Array<Promise<void>> = [];
  // The first failure of any copy; each copy's promise never rejects, so none goes unhandled
  // while the walk is still running.
  let copyFailure: { error: unknown } | undefined;
  // Every directory is pinned: opened without following a link, listed and read through its own
  // descriptor (/proc/self/fd/N/name), and held open until its queued copies are done. A directory
  // swapped for a link while we work cannot send a read anywhere else.
  const walk = async (dir: FileHandle, to: string, relative: string, depth: number): Promise<void> => {
    const base = `/proc/self/fd/${dir.fd}`;
    const mine: Array<Promise<void>> = [];
    let batch: Array<CopyTask & { readonly rel: string }> = [];
    // Files go to the copy workers a batch at a time: the walk never waits on a copy.
    const flush = (): void => {
      if (batch.length === 0) return;
      const tasks = batch;
      batch = [];
      const copy = copyBatch(tasks, options.fileMode, budget.bytes)
        .then((results) => {
          const failed = results.findIndex((result) => !result.ok);
          if (failed >= 0) throw copyError(results[failed] as Exclude<CopyResult, { ok: true }>, tasks[failed]?.rel ?? "");
        })
        .catch((error: unknown) => void (copyFailure ??= { error }));
      copies.push(copy);
      mine.push(copy);
    };
    try {
      for await (const entry of await opendir(base, { bufferSize: DIRECTORY_READ_ENTRIES })) {
        if (copyFailure !== undefined) return;
        options.signal?.throwIfAborted();
        const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (excluded(rel)) continue;
        if (rel === OUT_NAME) {
          throw new StagingError(
            "invalid_input",
            `input directory ${JSON.stringify(source)} already has ${JSON.stringify(OUT_NAME)}, where the agent writes; leave it out with inputs.exclude: ["${OUT_NAME}"], or rename it`,
          );
        }
        const src = `${base}/${entry.name}`;
        const dst = join(to, entry.name);
        if (entry.isDirectory()) {
          count(budget, rel);
          if (depth + 1 > MAX_INPUT_DEPTH) {
            throw new StagingError(
              "invalid_input",
              `input ${JSON.stringify(rel)} is deeper than ${MAX_INPUT_DEPTH} levels (MAX_INPUT_DEPTH); hand over a shallower tree`,
            );
          }
          flush();
          await mkdir(dst, { mode: 0o755 });
          await walk(await openDirectory(src, rel), dst, rel, depth + 1);
          await chmod(dst, 0o755);
        } else if (entry.isFile()) {
          count(budget, rel);
          batch.push({ src, dst, rel });
          if (batch.length >= STAGE_COPY_BATCH) flush();
        } else if (entry.isSymbolicLink()) {
          count(budget, rel);
          // Copied as a link, never followed: it resolves inside the container, if at all.
          await symlink(await readlink(src), dst);
        } else {
          throw new StagingError(
            "invalid_input",
            `input ${JSON.stringify(rel)} is not a file, directory or link (a FIFO, socket or device); leave it out with inputs.exclude: [${JSON.stringify(rel)}]`,
          );
        }
      }
      flush();
    } finally {
      await Promise.all(mine);
      await dir.close();
    }
  };
  try {
    await walk(await openDirectory(source, "."), work, "", 0);
  } finally {
    await Promise.all(copies);
  }
  if (copyFailure !== undefined) throw copyFailure.error;
}

/** Entries read from a directory at a time (node's default is 32, each read a trip through the thread pool). */
const DIRECTORY_READ_ENTRIES = 512;

/** What a failed copy means for the caller, naming the input. */
function copyError(result: Exclude<CopyResult, { ok: true }>, rel: string): Error {
  switch (result.why) {
    case "link":
      return new StagingError("invalid_input", `input ${JSON.stringify(rel)} became a link while it was copied; hand over a tree nothing writes to`);
    case "hard_link":
      return new StagingError(
        "invalid_input",
        `input ${JSON.stringify(rel)} is a hard link (link count ${result.links}), whose bytes may be a file's outside the input directory; leave it out with inputs.exclude: [${JSON.stringify(rel)}], or put a copy of the file there`,
      );
    case "not_file":
      return new StagingError("invalid_input", `input ${JSON.stringify(rel)} is no longer a regular file; hand over a tree nothing writes to`);
    case "over_budget":
      return overBudget(rel);
    case "skipped":
      return new StagingError("io", `input ${JSON.stringify(rel)} was not copied after an earlier failure`);
    case "error":
      return Object.assign(new Error(`copying input ${JSON.stringify(rel)} failed: ${result.message}`), result.code === undefined ? {} : { code: result.code });
  }
}

/** Opens a directory of the input without following a link; refuses one that is no longer a directory. */
async function openDirectory(path: string, rel: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") {
      throw new StagingError(
        "invalid_input",
        `input ${JSON.stringify(rel)} is no longer a directory (it became a link or a file while it was copied); hand over a tree nothing writes to`,
      );
    }
    throw error;
  }
  return handle;
}

function checkRelative(relative: string): string {
  const bad =
    relative.length === 0 ||
    relative.includes("\0") ||
    relative.startsWith("/") ||
    relative.split("/").some((part) => part === "" || part === "." || part === "..");
  if (bad) {
    throw new StagingError("invalid_input", `input file name ${JSON.stringify(relative)} is not a plain relative path; write it like "src/main.ts"`);
  }
  if (relative === OUT_NAME || relative.startsWith(`${OUT_NAME}/`)) {
    throw new StagingError(
      "invalid_input",
      `input file ${JSON.stringify(relative)} is inside ${JSON.stringify(OUT_NAME)}, where the agent writes; choose another path`,
    );
  }
  return posix.normalize(relative);
}

async function writeInputFile(work: string, relative: string, content: string | Uint8Array, options: CopyOptions, budget: Budget): Promise<void> {
  const parts = checkRelative(relative).split("/");
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  count(budget, relative, bytes.length);
  // Make each parent ourselves, refusing a link or a file on the way: mkdir -p would follow a
  // link copied from the input directory out onto the host.
  let dir = work;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const existing = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (existing === undefined) {
      await mkdir(dir, { mode: 0o755 });
      await chmod(dir, 0o755);
    } else if (!existing.isDirectory()) {
      throw new StagingError(
        "invalid_input",
        `input file ${JSON.stringify(relative)} goes through ${JSON.stringify(relativeTo(work, dir))}, which is a file or a link, not a directory; choose another path`,
      );
    }
  }
  const path = join(dir, parts.at(-1) as string);
  // "wx" is O_CREAT|O_EXCL: it never follows a link at the last step and never replaces an input.
  await writeFile(path, bytes, { flag: "wx", mode: options.fileMode }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EEXIST")
      throw new StagingError("invalid_input", `input file ${JSON.stringify(relative)} is handed over twice (or is also in the input directory); keep one`);
    throw error;
  });
  await chmod(path, options.fileMode);
}

function relativeTo(root: string, path: string): string {
  return path.slice(root.length + 1);
}
