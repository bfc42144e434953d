// The bound on what an agent can write: the writable part of its Run directory (out/, or all of
// work/) is a size-limited tmpfs of its own, mounted here when this process may mount (root on the
// daemon's host). Past the bound the agent's writes fail with ENOSPC and the host's disk is
// untouched; the Run then ends as `write_limit`. Without that right nothing bounds it but the disk.

import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { readFile, rename, statfs } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { removeTree } from "./remove-tree.js";
import { FULL_BELOW_BYTES, FULL_BELOW_INODES } from "./limits.js";

const run = promisify(execFile);

let mountable: boolean | undefined;

/**
 * Whether this process can mount a tmpfs: root on Linux, and allowed to mount (a root inside a
 * container without CAP_SYS_ADMIN is not), found once by mounting one. The runtime says so when not.
 */
export function canBoundWrites(): boolean {
  if (mountable !== undefined) return mountable;
  mountable = false;
  if (process.platform !== "linux" || process.getuid?.() !== 0) return mountable;
  const probe = mkdtempSync(join(tmpdir(), "agentcage-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4096", "agentcage-probe", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    mountable = true;
  } catch {
    mountable = false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
  return mountable;
}

/** Mounts a tmpfs of at most `bytes` and `inodes` at the existing, empty directory `path`. */
export async function mountWritable(path: string, bytes: number, inodes: number): Promise<void> {
  await run("mount", ["-t", "tmpfs", "-o", `size=${bytes},nr_inodes=${inodes},mode=0755,nosuid,nodev`, "agentcage-writable", path]);
}

/** Shrinks a mounted tmpfs to what it holds now plus `bytes` and `inodes` more (after staging filled it). */
export async function allowMore(path: string, bytes: number, inodes: number): Promise<void> {
  const s = await statfs(path);
  const usedBytes = (s.blocks - s.bfree) * s.bsize;
  const usedInodes = s.files - s.ffree;
  await run("mount", ["-o", `remount,size=${usedBytes + bytes},nr_inodes=${usedInodes + inodes}`, path]);
}

/** Whether the agent used up its bound (its next write would have failed, or did). */
export async function writableFull(path: string): Promise<boolean> {
  const s = await statfs(path);
  return s.bavail * s.bsize < FULL_BELOW_BYTES || s.ffree < FULL_BELOW_INODES;
}

/** Unmounts every mount at or below `root` (deepest first); a busy one is detached lazily. */
export async function unmountUnder(root: string): Promise<void> {
  const base = resolve(root);
  let table: string;
  try {
    table = await readFile("/proc/self/mountinfo", "utf8");
  } catch {
    return;
  }
  const points = table
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((point): point is string => point !== undefined)
    .map(unescapeMountPoint)
    .filter((point) => point === base || point.startsWith(`${base}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) await run("umount", ["--lazy", point]).catch(() => undefined);
}

/** /proc/self/mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMountPoint(point: string): string {
  return point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * Ends the bound of a Run directory once the Run is over: what the agent wrote is copied onto the
 * disk first when the record is kept (links copied as links), then every tmpfs below it goes.
 */
export async function releaseWritable(root: string, writable: string, keep: boolean): Promise<void> {
  if (keep && (await isMountPoint(writable))) {
    const copy = `${writable}.kept`;
    // cp -a walks with descriptors, so a tree deeper than PATH_MAX is copied too; links stay links.
    await run("cp", ["-a", "--", writable, copy]);
    await run("umount", ["--lazy", writable]);
    await removeTree(writable);
    await rename(copy, writable);
  }
  await unmountUnder(root);
}

async function isMountPoint(path: string): Promise<boolean> {
  const table = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  const target = resolve(path);
  return table.split("\n").some((line) => unescapeMountPoint(line.split(" ")[4] ?? "") === target);
}

/** Copies a directory's contents into another (links as links, modes kept), deep trees included. */
export async function copyContents(from: string, to: string): Promise<void> {
  await run("cp", ["-a", "--", `${from}/.`, to]);
}
