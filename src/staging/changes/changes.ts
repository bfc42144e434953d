// Collects what the agent changed in a writable work/, relative to what was staged: the added and
// changed files (copied), the deleted paths, and one unified diff of the text changes
// (changes.patch, which `git apply` takes on a copy of the inputs), naming the files whose lines in it
// hold bidi or control characters (they may read differently from what applies). The agent's own out/ is not a
// change to the inputs: it comes back beside them as out/, under the Harvest's rules for an out/.
// The result is a tree the Harvest then copies under its usual rules, but as deep as the inputs may
// be: `files/`, `changes.patch`, `changes.json`, `out/`.
// Run it only once nothing writes to work/ (the container is gone). Links are never followed.

import { lstat, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { OUT_NAME, type ChangeSummary, type HarvestResult } from "../../plan/index.js";
import { excludeExpressions } from "../exclude/index.js";
import { harvest, MAX_HARVEST_DEPTH, MAX_HARVEST_ENTRIES, MAX_HARVEST_TOTAL_BYTES } from "../harvest/index.js";
import { holdsBidiOrControl } from "./bidi-or-control.js";
import { BINARY_SNIFF_BYTES, DIFF_TIMEOUT_MS, MAX_CHANGES_DEPTH, MAX_DIFF_FILE_BYTES } from "./limits.js";
import { gather, type GatherTask } from "./gather.js";
import { unchanged, type Manifest } from "./manifest.js";
import { KIND, walkTree } from "./walk.js";

/** Where the original content of a staged path can be read again: the fields of the Run's RunInputs that the change set reads (a subfolder does not reach its parent's inputs.ts). */
type Originals = {
  readonly directory?: string;
  readonly files?: Readonly<Record<string, string | Uint8Array>>;
  /** What staging left out of `directory`: nothing the agent does there is a change (inputs.exclude). */
  readonly exclude?: readonly string[];
};

/** Why the changes cannot be harvested: an entry the Harvest would refuse anyway, named. */
class ChangesRefused extends Error {
  override readonly name = "ChangesRefused";
  constructor(
    readonly reason: "symlink" | "special_file" | "too_many_entries" | "too_deep" | "changed_during_harvest",
    readonly entry: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Collects the changes of `work` into the new directory `into`, then harvests that to
 * `destination`; a refusal of either is the Harvest's refusal.
 */
export async function harvestChanges(
  work: string,
  since: { readonly manifest: Manifest; readonly originals: Originals },
  into: string,
  destination: string,
  options: { readonly signal?: AbortSignal; readonly replace?: boolean } = {},
): Promise<HarvestResult> {
  // The agent's out/, with the rules and limits of any out/; an agent that removed it left none.
  await mkdir(into, { recursive: true, mode: 0o755 });
  const agentOut = join(work, OUT_NAME);
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const out = (await lstat(agentOut).catch(() => undefined)) === undefined ? undefined : await harvest(agentOut, join(into, OUT_NAME), signal);
  if (out !== undefined && !out.ok) {
    const entry = outEntry(out.refusal.entry);
    return { ok: false, refusal: { ...out.refusal, entry, message: out.refusal.message.replace(out.refusal.entry, entry) } };
  }
  let changes: ChangeSummary;
  try {
    changes = await collectInto(work, since.manifest, since.originals, into, { outFiles: out?.files ?? 0 });
  } catch (error) {
    if (!(error instanceof ChangesRefused)) throw error;
    return { ok: false, refusal: { reason: error.reason, entry: JSON.stringify(error.entry), message: error.message } };
  }
  // The change set mirrors the inputs' own directories under files/: it may be as deep as they
  // were (the walk above bounds that), not only as deep as the Harvest lets an agent's out/ be, and
  // hold as many entries as it was built with (its files were counted against MAX_HARVEST_ENTRIES),
  // and out/ beside it what that Harvest took.
  const harvested = await harvest(into, destination, {
    ...options,
    maxDepth: Math.max(MAX_CHANGES_DEPTH, MAX_HARVEST_DEPTH) + 1,
    maxEntries: changeSetEntries(changes) + (out === undefined ? 0 : 1 + out.files + out.directories),
    maxTotalBytes: MAX_HARVEST_TOTAL_BYTES + (out?.bytes ?? 0),
  });
  return harvested.ok ? { ...harvested, changes } : harvested;
}

/**
 * A refusal's entry in out/ (`"."` is out/ itself), named as it sits in work/: the printable
 * literal is extended as it is, so none of its escapes is undone.
 */
function outEntry(entry: string): string {
  return entry === '"."' ? JSON.stringify(OUT_NAME) : `"${OUT_NAME}/${entry.slice(1)}`;
}

/** Files and directories in a change set: the copied files, the directories that mirror theirs under files/, files/ itself, the patch and the summary. */
function changeSetEntries(changes: ChangeSummary): number {
  const directories = new Set<string>();
  for (const rel of [...changes.added, ...changes.changed]) {
    for (let slash = rel.indexOf("/"); slash !== -1; slash = rel.indexOf("/", slash + 1)) directories.add(rel.slice(0, slash));
  }
  return changes.added.length + changes.changed.length + directories.size + 3;
}

/** Writes the changes of `work` into the new directory `into` and returns their summary, with what it says of the agent's out/ when the caller harvested it. */
async function collectInto(work: string, manifest: Manifest, originals: Originals, into: string, out: Pick<ChangeSummary, "outFiles">): Promise<ChangeSummary> {
  const added: string[] = [];
  const changed: string[] = [];
  const undiffed: string[] = [];
  const bidiOrControl: string[] = [];
  const seen = new Set<string>();
  const patches: string[] = [];
  let bytes = 0;
  await mkdir(join(into, "files"), { recursive: true, mode: 0o755 });

  // More entries than were staged plus what a Harvest may take, or a deeper tree, cannot be harvested:
  // stop walking there rather than walk whatever the agent made.
  const maxEntries = manifest.size + MAX_HARVEST_ENTRIES;
  // Neither what the inputs left out nor the agent's own out/ (harvested beside) is a change to the inputs.
  const skip = [...excludeExpressions(originals.exclude ?? []), { source: `^${OUT_NAME}$`, flags: "" }];
  const walk = await walkTree(work, { maxEntries, maxDepth: MAX_CHANGES_DEPTH }, { skip });
  if ("stopped" in walk) {
    throw walk.stopped === "too_deep"
      ? new ChangesRefused(
          "too_deep",
          walk.entry,
          `${JSON.stringify(walk.entry)} is deeper than ${MAX_CHANGES_DEPTH} levels (MAX_CHANGES_DEPTH); leave a shallower tree`,
        )
      : new ChangesRefused(
          "too_many_entries",
          walk.entry,
          `work/ holds more than ${maxEntries} entries (the staged ones plus MAX_HARVEST_ENTRIES); leave fewer files`,
        );
  }
  // First what changed, so that too many changes are refused before anything is copied.
  const copies: Array<{ readonly rel: string; readonly size: number; readonly ino: bigint }> = [];
  for (let i = 0; i < walk.paths.length; i++) {
    const rel = walk.paths[i] as string;
    const kind = walk.kinds[i];
    const now = { ino: walk.ino[i] as bigint, size: walk.size[i] as bigint, ctimeNs: walk.ctimeNs[i] as bigint };
    const before = manifest.get(rel);
    seen.add(rel);
    if (kind === KIND.directory) continue;
    if (unchanged(before, now) && before?.kind !== "directory") continue;
    if (kind !== KIND.file) {
      const symlink = kind === KIND.symlink;
      throw new ChangesRefused(
        symlink ? "symlink" : "special_file",
        rel,
        `${JSON.stringify(rel)} is a ${symlink ? "symbolic link" : "special file"} the agent made or changed; the Harvest takes regular files only`,
      );
    }
    (before === undefined || before.kind !== "file" ? added : changed).push(rel);
    copies.push({ rel, size: Number(now.size), ino: now.ino });
  }
  if (copies.length > MAX_HARVEST_ENTRIES) {
    throw new ChangesRefused(
      "too_many_entries",
      (copies[MAX_HARVEST_ENTRIES] as { rel: string }).rel,
      `the agent added or changed ${copies.length} files, more than MAX_HARVEST_ENTRIES (${MAX_HARVEST_ENTRIES}); change fewer files in one Run, or leave the generated ones out of work/`,
    );
  }
  // The copies and every read of contents run in a worker, in batches; the diffs run here.
  const where = { work, files: join(into, "files"), originals: originals.directory, maxDiffBytes: MAX_DIFF_FILE_BYTES };
  const originalKnown = (rel: string): boolean => originals.files?.[rel] !== undefined;
  const copyTasks: GatherTask[] = copies.map(({ rel, size, ino }) => ({
    rel,
    copy: { ino, size: BigInt(size) },
    readNow: size <= MAX_DIFF_FILE_BYTES,
    readOriginal: size <= MAX_DIFF_FILE_BYTES && manifest.get(rel)?.kind === "file" && !originalKnown(rel),
  }));
  const estimate = (task: GatherTask): number =>
    (task.readNow ? Number(task.copy?.size ?? 0n) : 0) + (task.readOriginal ? Math.min(Number(manifest.get(task.rel)?.size ?? 0), MAX_DIFF_FILE_BYTES) : 0);
  let index = 0;
  for await (const contents of gather(where, copyTasks, estimate)) {
    const { rel, size } = copies[index++] as { rel: string; size: number };
    if (contents.replaced === true) {
      throw new ChangesRefused(
        "changed_during_harvest",
        rel,
        `${JSON.stringify(rel)} changed after work/ was walked; harvest only a work/ nothing writes to any more, after the container is gone`,
      );
    }
    bytes += size;
    const staged = manifest.get(rel)?.kind === "file";
    const before = staged ? originalOf(originals, rel, contents.original) : undefined;
    // A changed file whose original cannot be read again is not diffed: against nothing, its patch would create a file that exists.
    const diffable = contents.now !== undefined && (!staged || before !== undefined);
    const patch = diffable ? patchOf(rel, before, Buffer.from(contents.now as Uint8Array)) : undefined;
    if (patch === undefined) undiffed.push(rel);
    else patches.push(patch);
    if (patch !== undefined && holdsBidiOrControl(patch)) bidiOrControl.push(rel);
  }

  const deleted: string[] = [];
  for (const [rel, entry] of manifest) {
    if (seen.has(rel) || entry.kind === "directory") continue;
    deleted.push(rel);
  }
  const deleteTasks: GatherTask[] = deleted.map((rel) => ({ rel, readNow: false, readOriginal: manifest.get(rel)?.kind === "file" && !originalKnown(rel) }));
  index = 0;
  for await (const contents of gather(where, deleteTasks, estimate)) {
    const rel = deleted[index++] as string;
    const old = manifest.get(rel)?.kind === "file" ? originalOf(originals, rel, contents.original) : undefined;
    const patch = old === undefined || isBinary(old) || old.length > MAX_DIFF_FILE_BYTES ? undefined : unifiedDiff(rel, old.toString("utf8"), undefined);
    if (patch === undefined) undiffed.push(rel);
    else patches.push(patch);
    if (patch !== undefined && holdsBidiOrControl(patch)) bidiOrControl.push(rel);
  }
  const summary: ChangeSummary = {
    added: added.sort(),
    changed: changed.sort(),
    deleted: deleted.sort(),
    undiffed: undiffed.sort(),
    ...(bidiOrControl.length === 0 ? {} : { bidiOrControl: bidiOrControl.sort() }),
    bytes,
    ...out,
  };
  await writeFile(join(into, "changes.patch"), patches.join(""), { mode: 0o644 });
  await writeFile(join(into, "changes.json"), `${JSON.stringify(summary, null, 2)}\n`, { mode: 0o644 });
  return summary;
}

/** The staged content of `rel`: given in memory, or read from the originals' directory (`read`), or undefined when it could not be read again. */
function originalOf(originals: Originals, rel: string, read: Uint8Array | undefined): Buffer | undefined {
  const given = originals.files?.[rel];
  if (given !== undefined) return Buffer.from(given);
  return read === undefined ? undefined : Buffer.from(read.buffer, read.byteOffset, read.byteLength);
}

/** A unified diff of one text file, or undefined when either side is binary. */
function patchOf(rel: string, old: Buffer | undefined, now: Buffer): string | undefined {
  if (isBinary(now) || (old !== undefined && isBinary(old))) return undefined;
  return unifiedDiff(rel, old?.toString("utf8"), now.toString("utf8"));
}

/**
 * `git apply`-able: a/ and b/ prefixes, /dev/null for a side that does not exist. Undefined when the
 * diff takes longer than DIFF_TIMEOUT_MS (its cost grows with the square of the changed lines, and it
 * runs on the event loop every other Run shares): that file is listed as undiffed.
 */
function unifiedDiff(rel: string, before: string | undefined, after: string | undefined): string | undefined {
  const patch = createTwoFilesPatch(
    before === undefined ? "/dev/null" : `a/${rel}`,
    after === undefined ? "/dev/null" : `b/${rel}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context: 3, timeout: DIFF_TIMEOUT_MS },
  ) as string | undefined;
  if (patch === undefined) return undefined;
  // jsdiff opens with a line of "=" that no patch tool needs; git's own header says what a side
  // that does not exist means (a new or a deleted file), or git apply looks for "dev/null".
  const mode = before === undefined ? "new file mode 100644\n" : after === undefined ? "deleted file mode 100644\n" : "";
  return `diff --git a/${rel} b/${rel}\n${mode}${patch.slice(patch.indexOf("---"))}`;
}

/** Binary as git decides it: a NUL byte near the start. Invalid UTF-8 counts too: it would not survive the patch. */
function isBinary(bytes: Buffer): boolean {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return true;
  return !Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
}
