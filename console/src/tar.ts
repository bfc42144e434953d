// A Run's input files as the service takes them: an uncompressed tar archive of regular files,
// each at its path inside the folder chosen (webkitRelativePath, less the folder's own name) or at
// its own name. modern-tar writes a long path (over ustar's 100 bytes) whole, as a PAX record.

import { packTar } from "modern-tar";

export type Chosen = { readonly files: readonly File[]; readonly folder: readonly File[] };

/** The path a file has in the archive: picked one by one, its name; from a folder, its path in that folder. */
function pathOf(file: File): string {
  return file.webkitRelativePath === "" ? file.name : file.webkitRelativePath.split("/").slice(1).join("/") || file.name;
}

/** Both sets in one archive; a file picked by itself wins over one of the same path in the folder. */
export async function tarOf({ files, folder }: Chosen): Promise<Uint8Array> {
  const byPath = new Map<string, File>();
  for (const file of [...folder, ...files]) byPath.set(pathOf(file), file);
  const entries = await Promise.all(
    [...byPath].map(async ([name, file]) => {
      const body = new Uint8Array(await file.arrayBuffer());
      return { header: { name, size: body.byteLength, type: "file" as const, mode: 0o644 }, body };
    }),
  );
  return packTar(entries);
}
