// Makes one Run's directory under the Staging Directory: its inputs in work/, the agent's out/,
// the prompt, and who owns it. On any failure nothing of the Run is left on disk.
// The agent's uid must be able to write out/ (or all of work/) whatever uid we run as.

import { chmod, lchown, lstat, mkdir, opendir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { copyInputs, StagingError, type RunInputs } from "./inputs.js";
import { runDirectory, type RunDirectory } from "./layout.js";
import { MAX_INPUT_BYTES, MAX_INPUT_ENTRIES, MAX_WRITABLE_ENTRIES } from "./limits.js";
import { allowMore, mountWritable, unmountUnder } from "./writable.js";

export type PrepareOptions = {
  readonly runtimeDir: string;
  readonly runId: string;
  readonly owner: string;
  readonly inputs: RunInputs;
  readonly promptText: string;
  readonly writableWork: boolean;
  /** The user the container runs as (`uid[:gid]` or a name). */
  readonly agentUser: string;
  /**
   * Bytes the agent may write (in out/, or in work/ beyond its inputs), enforced by a tmpfs of
   * that size; default: none mounted here (where this process cannot mount, see writable.ts, the
   * runtime bounds it with a volume of the Run's own instead).
   */
  readonly writableBytes?: number;
  /**
   * The tree the agent writes (out/, or a writable work/) reaches it as a volume of the Run's own,
   * whose archive makes a numeric agent user its owner (archive-pack.ts): it is then left here as
   * staged, its modes not widened for the agent, so the volume holds what the root path would. A
   * named agent user (no uid to own the entries) still gets the widened modes. Default false.
   */
  readonly ownedInVolume?: boolean;
  /** Who may end this Run and until when, kept in run.json for the sweep; default: none. */
  readonly ownership?: Readonly<Record<string, string>>;
  /** Stops staging when aborted; what was made is removed and the abort's reason is thrown. Default: never. */
  readonly signal?: AbortSignal;
  /** Contents of this Run's secret files, in order (see layout.ts secretFilePath); default none. */
  readonly secretFiles?: ReadonlyArray<string | Uint8Array>;
  /**
   * A work/ made ahead for a pooled container (empty but for its out/, already bounded and the
   * agent's), moved here whole instead of a new one: the container that mounts it, started before
   * this Run was, sees what is staged into it. Read-only work/ only. Default: a new work/.
   */
  readonly adoptedWork?: string;
};

/**
 * What `run.json` holds; the sweep reads it to tell this owner's Run directories from others', and
 * (from `ownership`: session, host, pid, its start time, deadline) which of them nothing will finish.
 */
export type RunInfo = {
  readonly runId: string;
  readonly owner: string;
  readonly createdAt: string;
  readonly ownership?: Readonly<Record<string, string>>;
};

export async function prepareRunDirectory(options: PrepareOptions): Promise<RunDirectory> {
  const dir = runDirectory(options.runtimeDir, options.runId);
  await mkdir(options.runtimeDir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw new StagingError(
      "io",
      `the Staging Directory ${JSON.stringify(options.runtimeDir)} cannot be made (${(error as NodeJS.ErrnoException).code}); create it or choose another runtimeDir`,
      { cause: error },
    );
  });
  // Exclusive: a Run directory is never shared, and 0700 keeps other host users out of the record.
  await mkdir(dir.root, { mode: 0o700 }).catch((error: unknown) => {
    throw new StagingError(
      "io",
      `the Run directory ${JSON.stringify(dir.root)} cannot be made (${(error as NodeJS.ErrnoException).code}); check the Staging Directory's permissions`,
      { cause: error },
    );
  });
  try {
    const info: RunInfo = {
      runId: options.runId,
      owner: options.owner,
      createdAt: new Date().toISOString(),
      ...(options.ownership === undefined ? {} : { ownership: options.ownership }),
    };
    await writeFile(dir.info, `${JSON.stringify(info)}\n`, { mode: 0o644 });
    const adopted = options.adoptedWork !== undefined && !options.writableWork;
    if (adopted) await rename(options.adoptedWork as string, dir.work);
    else await mkdir(dir.work, { mode: 0o755 });
    const bound = options.writableBytes;
    // A writable work/ holds the inputs too: its tmpfs takes them first, then is shrunk to them plus the bound.
    if (bound !== undefined && options.writableWork) await mountWritable(dir.work, MAX_INPUT_BYTES + bound, MAX_INPUT_ENTRIES + MAX_WRITABLE_ENTRIES);
    await copyInputs(options.inputs, dir.work, {
      fileMode: options.writableWork ? 0o644 : 0o444,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    // An adopted work/ came with its out/ made, bounded and granted when the member was.
    if (!adopted) await prepareOut(dir, options);
    await chmod(dir.work, 0o755);
    await writeFile(dir.prompt, options.promptText, { mode: 0o444 });
    await chmod(dir.prompt, 0o444);
    if (!adopted) await grantOut(dir, options);
    if ((options.secretFiles ?? []).length > 0) await writeSecretFiles(dir.secrets, options.secretFiles ?? [], options.agentUser);
    return dir;
  } catch (error) {
    await unmountUnder(dir.root);
    await rm(dir.root, { recursive: true, force: true });
    if (error instanceof StagingError || options.signal?.aborted) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new StagingError(
      "io",
      `the Run directory ${JSON.stringify(dir.root)} could not be prepared (${code}: ${(error as Error).message}); check the Staging Directory's disk and permissions`,
      { cause: error },
    );
  }
}

/** The agent's out/ (or, for a writable work/, the room beyond the inputs), bounded. */
async function prepareOut(dir: RunDirectory, options: PrepareOptions): Promise<void> {
  const bound = options.writableBytes;
  await mkdir(dir.out, { mode: 0o755 });
  if (bound !== undefined && options.writableWork) await allowMore(dir.work, bound, MAX_WRITABLE_ENTRIES);
  if (bound !== undefined && !options.writableWork) await mountWritable(dir.out, bound, MAX_WRITABLE_ENTRIES);
}

/** What the agent writes is its own: out/, or all of a writable work/ (after work/'s own mode is set). */
async function grantOut(dir: RunDirectory, options: PrepareOptions): Promise<void> {
  const agentOwnsItInVolume = options.ownedInVolume === true && numericUser(options.agentUser) !== undefined;
  if (!agentOwnsItInVolume) await grantToAgent(options.writableWork ? dir.work : dir.out, options.agentUser);
}

/**
 * Writes each secret file readable by the agent alone where we can make it so (owned by its uid,
 * 0400, when we are root or are that uid), else 0444 inside the 0700 Run directory.
 */
async function writeSecretFiles(dir: string, contents: ReadonlyArray<string | Uint8Array>, agentUser: string): Promise<void> {
  await mkdir(dir, { mode: 0o711 });
  await chmod(dir, 0o711);
  const agent = numericUser(agentUser);
  const ourUid = process.getuid?.();
  for (const [index, content] of contents.entries()) {
    const path = join(dir, String(index));
    await writeFile(path, content, { flag: "wx", mode: 0o400 });
    if (agent !== undefined && agent.uid === ourUid) continue;
    if (ourUid === 0 && agent !== undefined) await lchown(path, agent.uid, agent.gid);
    else await chmod(path, 0o444);
  }
}

/** The numeric uid and gid in `uid[:gid]`, when the user is written that way. */
export function numericUser(user: string): { uid: number; gid: number } | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(user);
  if (match === null) return undefined;
  const uid = Number(match[1]);
  return { uid, gid: match[2] === undefined ? uid : Number(match[2]) };
}

/**
 * Lets the agent write a tree: chown to its uid when we are root; nothing when it runs as us;
 * else (another uid, or a name we cannot resolve) world-writable modes, which the 0700 Run
 * directory keeps from other host users. Links are never followed (lchown, no chmod).
 */
export async function grantToAgent(tree: string, agentUser: string): Promise<void> {
  const agent = numericUser(agentUser);
  const ourUid = process.getuid?.();
  if (agent !== undefined && agent.uid === ourUid) return;
  const asRoot = ourUid === 0 && agent !== undefined;
  const visit = async (path: string): Promise<void> => {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) {
      if (asRoot) await lchown(path, agent.uid, agent.gid);
      return;
    }
    if (asRoot) await lchown(path, agent.uid, agent.gid);
    else await chmod(path, stats.isDirectory() ? 0o777 : 0o666);
    if (stats.isDirectory()) for await (const entry of await opendir(path)) await visit(join(path, entry.name));
  };
  await visit(tree);
}
