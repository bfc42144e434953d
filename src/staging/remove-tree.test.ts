// removeTree on a real disk (no engine): trees no path can reach the bottom of, directories of mode
// 000, links. As the test's own uid and, when that is root, as NON_ROOT_UID in a child process
// (running remove-tree.ts transpiled on its own), where only the owner's permissions let it in.

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, lstat, mkdir, mkdtemp, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTree } from "./remove-tree.js";

const DEPTH = 5000;
const NON_ROOT_UID = 1000;
const asRoot = process.getuid?.() === 0;

let scratch: string;
/** A directory outside every tree, which links point at; its file must survive. */
let outside: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "agentcage-remove-tree-"));
  outside = join(scratch, "outside");
  await mkdir(outside);
  await writeFile(join(outside, "keep.txt"), "kept");
});

afterEach(() => {
  // GNU rm walks with openat(), so it cleans up even what a failing removeTree left.
  execFileSync("rm", ["-rf", scratch]);
});

/** A directory `depth` levels of d/ deep, built from the bottom so no path grows; `bottom` fills its deepest level. */
async function deepTree(path: string, depth: number, bottom: (dir: string) => Promise<void>): Promise<void> {
  const wrapper = `${path}.wrapper`;
  await mkdir(path);
  await bottom(path);
  for (let level = 1; level < depth; level++) {
    await mkdir(wrapper);
    await rename(path, join(wrapper, "d"));
    await rename(wrapper, path);
  }
}

/** A directory of mode 000 holding a file and a subdirectory with a file. */
async function lockedDirectory(path: string): Promise<void> {
  await mkdir(join(path, "sub"), { recursive: true });
  await writeFile(join(path, "f"), "x");
  await writeFile(join(path, "sub", "g"), "y");
  await chmod(path, 0o000);
}

/** What an agent may leave in a Run directory `root`, by what makes it hard to remove. */
const TREES: Record<string, (root: string) => Promise<void>> = {
  "a 5,000-deep tree with a mode-000 directory and links at its bottom": async (root) => {
    await mkdir(root);
    await deepTree(join(root, "deep"), DEPTH, async (bottom) => {
      await writeFile(join(bottom, "leaf"), "leaf");
      await lockedDirectory(join(bottom, "locked"));
      await symlink(outside, join(bottom, "to-directory"));
      await symlink(join(outside, "keep.txt"), join(bottom, "to-file"));
    });
  },
  "mode-000 and 0500 directories with files in them": async (root) => {
    await mkdir(root);
    await lockedDirectory(join(root, "locked"));
    await mkdir(join(root, "read-only", "inner"), { recursive: true });
    await writeFile(join(root, "read-only", "inner", "h"), "z");
    await chmod(join(root, "read-only", "inner"), 0o500);
    await chmod(join(root, "read-only"), 0o500);
    await chmod(root, 0o000);
  },
};

describe("removeTree", () => {
  it.each(Object.entries(TREES))("removes %s, never what a link points to", async (_name, build) => {
    const root = join(scratch, "run");
    await build(root);
    await removeTree(root);
    expect(existsSync(root)).toBe(false);
    expect(await readFile(join(outside, "keep.txt"), "utf8")).toBe("kept");
  });

  it("removes a link given as the root, never what it points to", async () => {
    await symlink(outside, join(scratch, "link"));
    await symlink(join(scratch, "nowhere"), join(scratch, "dangling"));
    await removeTree(join(scratch, "link"));
    await removeTree(join(scratch, "dangling"));
    expect(existsSync(join(scratch, "link"))).toBe(false);
    await expect(lstat(join(scratch, "dangling"))).rejects.toThrow("ENOENT");
    expect(await readFile(join(outside, "keep.txt"), "utf8")).toBe("kept");
  });

  it("removes a file given as the root, and does nothing when there is nothing", async () => {
    await writeFile(join(scratch, "file"), "x");
    await removeTree(join(scratch, "file"));
    expect(existsSync(join(scratch, "file"))).toBe(false);
    await expect(removeTree(join(scratch, "missing"))).resolves.toBeUndefined();
  });
});

/** A directory NON_ROOT_UID owns, in which it may make and remove a tree, as it would its Staging Directory. */
async function directoryOfNonRoot(): Promise<string> {
  const dir = join(scratch, "non-root");
  await mkdir(dir);
  await chown(dir, NON_ROOT_UID, NON_ROOT_UID);
  await chmod(scratch, 0o755);
  return dir;
}

/** Runs removeTree(path) as NON_ROOT_UID, from remove-tree.ts transpiled on its own (it imports only node:). */
async function removeTreeAsNonRoot(path: string): Promise<{ status: number | null; stderr: string }> {
  const source = await readFile(join(dirname(fileURLToPath(import.meta.url)), "remove-tree.ts"), "utf8");
  const module = join(scratch, "remove-tree.mjs");
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  await writeFile(module, outputText);
  const script = "const [url, path] = process.argv.slice(1); await (await import(url)).removeTree(path);";
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script, pathToFileURL(module).href, path], {
    uid: NON_ROOT_UID,
    gid: NON_ROOT_UID,
    encoding: "utf8",
  });
  return { status: child.status, stderr: child.stderr };
}

describe.runIf(asRoot)("removeTree as a non-root uid", () => {
  it.each(Object.entries(TREES))("removes %s of its own", async (_name, build) => {
    const root = join(await directoryOfNonRoot(), "run");
    await build(root);
    // Owners change, modes stay as built.
    execFileSync("chown", ["-R", "--no-dereference", `${NON_ROOT_UID}:${NON_ROOT_UID}`, root]);
    expect(await removeTreeAsNonRoot(root)).toEqual({ status: 0, stderr: "" });
    expect(existsSync(root)).toBe(false);
    expect(await readFile(join(outside, "keep.txt"), "utf8")).toBe("kept");
  });

  it("fails with EACCES on a mode-000 directory another uid owns, and leaves it", async () => {
    const root = join(await directoryOfNonRoot(), "run");
    await mkdir(root);
    await lockedDirectory(join(root, "foreign"));
    await chown(root, NON_ROOT_UID, NON_ROOT_UID);
    const { status, stderr } = await removeTreeAsNonRoot(root);
    expect(status).not.toBe(0);
    expect(stderr).toContain("EACCES");
    expect(existsSync(join(root, "foreign"))).toBe(true);
  });
});
