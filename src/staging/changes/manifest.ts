// What was staged into a writable work/, entry by entry, so what the agent changed can be told
// afterwards without a second copy of the inputs: a file whose inode, size and change time are all
// as staged is unchanged (the change time moves on every write and cannot be set back by a user).

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
