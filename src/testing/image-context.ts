// A build context as data: the files read from a directory (plus extra files), the digest of
// everything a build is given, and the tar that is sent. Invariant: the digest covers exactly what
// the tar holds (every name, executable bit and byte), the Dockerfile's name and the build args;
// the tar is made from the same entries, with modes, owners and times fixed.

import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import tar, { type Pack } from "tar-stream";

/** The image label holding the digest of a build's inputs; equal digest, nothing to build. */
export const INPUTS_LABEL = "agentcage.inputs";
/** Every entry of a build context gets this time, so the same files always make the same tar. */
const CONTEXT_MTIME = new Date(0);

export type ContextFile = {
  /** Path inside the build context: forward slashes, no leading "./". */
  readonly name: string;
  /** Any execute bit set: the one mode bit git keeps, so the only one that reaches the image (0755, else 0644). */
  readonly executable: boolean;
  readonly contents: Buffer;
};

/** A host file put into the build context under another name. */
export type ExtraFile = {
  readonly name: string;
  readonly from: string;
  /** Whether it enters executable; default: whether the host file has an execute bit. */
  readonly executable?: boolean;
};

/** The digest the `agentcage.inputs` label carries. Length-prefixed fields, so no two inputs collide. */
export function inputsHash(files: readonly ContextFile[], buildArgs: Readonly<Record<string, string>>, dockerfile = "Dockerfile"): string {
  const hash = createHash("sha256");
  const field = (value: string | Buffer): void => {
    hash.update(`${Buffer.byteLength(value)}:`);
    hash.update(value);
  };
  field("agentcage.inputs v1");
  field(dockerfile);
  for (const file of [...files].sort((a, b) => compare(a.name, b.name))) {
    field("file");
    field(file.name);
    field(file.executable ? "755" : "644");
    field(file.contents);
  }
  for (const name of Object.keys(buildArgs).sort(compare)) {
    field("arg");
    field(name);
    field(buildArgs[name] as string);
  }
  return hash.digest("hex");
}

/** A tar of the context: parent directories first, then files by name; root-owned, fixed times. */
export function packContext(files: readonly ContextFile[]): Pack {
  const pack = tar.pack();
  const directories = new Set<string>();
  for (const file of files) {
    for (let dir = path.posix.dirname(file.name); dir !== "."; dir = path.posix.dirname(dir)) directories.add(dir);
  }
  const common = { uid: 0, gid: 0, mtime: CONTEXT_MTIME } as const;
  for (const dir of [...directories].sort(compare)) pack.entry({ ...common, name: `${dir}/`, type: "directory", mode: 0o755 });
  for (const file of [...files].sort((a, b) => compare(a.name, b.name))) {
    pack.entry({ ...common, name: file.name, type: "file", mode: file.executable ? 0o755 : 0o644, size: file.contents.length }, file.contents);
  }
  pack.finalize();
  return pack;
}

/** Reads a context directory (regular files only) plus extra files into context entries. */
export async function readContext(contextDir: string, extraFiles: readonly ExtraFile[] = []): Promise<ContextFile[]> {
  const files: ContextFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => compare(a.name, b.name))) {
      const full = path.join(dir, entry.name);
      const name = path.relative(contextDir, full).split(path.sep).join("/");
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(await contextFile(name, full));
      else throw new Error(`${full} is not a regular file or directory; a build context holds only those`);
    }
  };
  await walk(contextDir);
  const names = new Set(files.map((file) => file.name));
  for (const extra of extraFiles) {
    const name = path.posix.normalize(extra.name);
    if (name.startsWith("/") || name === "." || name.startsWith("../")) {
      throw new Error(`extra file name ${JSON.stringify(extra.name)} is not inside the build context; write a relative path such as "app/main.js"`);
    }
    if (names.has(name)) throw new Error(`extra file ${JSON.stringify(name)} is already in ${contextDir}; give it another name`);
    if (!(await stat(extra.from)).isFile()) throw new Error(`${extra.from} is not a regular file; only files can be added to a build context`);
    names.add(name);
    files.push(await contextFile(name, extra.from, extra.executable));
  }
  return files;
}

async function contextFile(name: string, from: string, executable?: boolean): Promise<ContextFile> {
  const info = await stat(from);
  return { name, executable: executable ?? (info.mode & 0o111) !== 0, contents: await readFile(from) };
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
