// A Run's input files as the service takes them: an uncompressed tar archive of regular files,
// each at its path relative to the folder chosen (webkitRelativePath) or at its own name.

import { createTar } from "nanotar";

export async function tarOf(files: readonly File[]): Promise<Uint8Array> {
  const entries = await Promise.all(
    files.map(async (file) => ({
      name: file.webkitRelativePath === "" ? file.name : file.webkitRelativePath.split("/").slice(1).join("/") || file.name,
      data: new Uint8Array(await file.arrayBuffer()),
    })),
  );
  return createTar(entries);
}
