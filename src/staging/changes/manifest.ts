// What was staged into a writable work/, entry by entry, so what the agent changed can be told
// afterwards without a second copy of the inputs: a file whose inode, size and change time are all
// as staged is unchanged (the change time moves on every write and cannot be set back by a user).

import { lstat, opendir } from "node:fs/promises";
import { join } from "node:path";

export type ManifestEntry = { readonly kind: "file" | "directory" | "symlink"; readonly ino: bigint; readonly size: bigint; readonly ctimeNs: bigint };

/** Relative path (forward slashes) to what it was when the Run started. */
export type Manifest = ReadonlyMap<string, ManifestEntry>;

export async function takeManifest(root: string): Promise<Manifest> {
  const entries = new Map<string, ManifestEntry>();
  const visit = async (dir: string, relative: string): Promise<void> => {
    for await (const entry of await opendir(dir)) {
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const path = join(dir, entry.name);
      const stats = await lstat(path, { bigint: true });
      const kind = stats.isDirectory() ? "directory" : stats.isSymbolicLink() ? "symlink" : "file";
      entries.set(rel, { kind, ino: stats.ino, size: stats.size, ctimeNs: stats.ctimeNs });
      if (kind === "directory") await visit(path, rel);
    }
  };
  await visit(root, "");
  return entries;
}

export function unchanged(before: ManifestEntry | undefined, now: { readonly ino: bigint; readonly size: bigint; readonly ctimeNs: bigint }): boolean {
  return before !== undefined && before.ino === now.ino && before.size === now.size && before.ctimeNs === now.ctimeNs;
}
