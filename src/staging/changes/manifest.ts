// What was staged into a writable work/, entry by entry, so what the agent changed can be told
// afterwards without a second copy of the inputs: a file whose inode, size and change time are all
// as staged is unchanged (the change time moves on every write and cannot be set back by a user).

import { lstat, open, readlink } from "node:fs/promises";
import { join } from "node:path";
import { KIND, walkTree } from "./walk.js";

export type ManifestEntry = { readonly kind: "file" | "directory" | "symlink"; readonly ino: bigint; readonly size: bigint; readonly ctimeNs: bigint };

/** Relative path (forward slashes) to what it was when the Run started. */
export type Manifest = ReadonlyMap<string, ManifestEntry>;

/** Staging bounded the inputs already (entries and depth); the manifest takes all of them. */
const UNBOUNDED = { maxEntries: Number.POSITIVE_INFINITY, maxDepth: Number.POSITIVE_INFINITY };

export async function takeManifest(root: string): Promise<Manifest> {
  const walk = await walkTree(root, UNBOUNDED);
  if ("stopped" in walk) throw new Error(`the manifest of ${root} stopped at ${walk.entry} (${walk.stopped}), which no limit was set for`);
  const entries = new Map<string, ManifestEntry>();
  walk.paths.forEach((rel, i) => {
    const kind = walk.kinds[i] === KIND.directory ? "directory" : walk.kinds[i] === KIND.symlink ? "symlink" : "file";
    entries.set(rel, { kind, ino: walk.ino[i] as bigint, size: walk.size[i] as bigint, ctimeNs: walk.ctimeNs[i] as bigint });
  });
  return entries;
}

export function unchanged(before: ManifestEntry | undefined, now: { readonly ino: bigint; readonly size: bigint; readonly ctimeNs: bigint }): boolean {
  return before !== undefined && before.ino === now.ino && before.size === now.size && before.ctimeNs === now.ctimeNs;
}

/** Bytes compared at a time when a copied-back file is checked against what was staged. */
const COMPARE_CHUNK_BYTES = 1024 * 1024;

/**
 * The manifest of `copy`, a fresh copy of the work/ `staged` (what the agent left in its volume,
 * copied back): a staged file whose copy has the same size, mode and bytes, or a staged link naming
 * the same target, is as staged, with the copy's own inode and change time; any other entry keeps
 * what it was, so it reads as changed.
 */
export async function carryManifest(manifest: Manifest, staged: string, copy: string): Promise<Manifest> {
  const carried = new Map<string, ManifestEntry>();
  for (const [rel, entry] of manifest) {
    carried.set(rel, entry);
    if (entry.kind === "symlink") {
      // A link is as staged when it still names the same target.
      const [now, was] = await Promise.all([readlink(join(copy, rel)).catch(() => undefined), readlink(join(staged, rel)).catch(() => undefined)]);
      const stats = now !== undefined && now === was ? await lstat(join(copy, rel), { bigint: true }) : undefined;
      if (stats !== undefined) carried.set(rel, { kind: "symlink", ino: stats.ino, size: stats.size, ctimeNs: stats.ctimeNs });
      continue;
    }
    if (entry.kind !== "file") continue;
    const now = await lstat(join(copy, rel), { bigint: true }).catch(() => undefined);
    const was = await lstat(join(staged, rel), { bigint: true }).catch(() => undefined);
    if (now === undefined || was === undefined || !now.isFile() || !was.isFile() || now.size !== entry.size || was.size !== entry.size || now.mode !== was.mode)
      continue;
    if (await sameBytes(join(staged, rel), join(copy, rel))) carried.set(rel, { kind: "file", ino: now.ino, size: now.size, ctimeNs: now.ctimeNs });
  }
  return carried;
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const [one, two] = await Promise.all([open(a, "r"), open(b, "r")]);
  try {
    const x = Buffer.alloc(COMPARE_CHUNK_BYTES);
    const y = Buffer.alloc(COMPARE_CHUNK_BYTES);
    for (;;) {
      const [r, s] = await Promise.all([one.read(x, 0, x.length, null), two.read(y, 0, y.length, null)]);
      if (r.bytesRead !== s.bytesRead) return false;
      if (r.bytesRead === 0) return true;
      if (!x.subarray(0, r.bytesRead).equals(y.subarray(0, s.bytesRead))) return false;
    }
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
}
