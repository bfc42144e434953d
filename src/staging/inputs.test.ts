// Staging a caller's inputs into work/ on the local disk (no engine): the tree arrives byte-exact
// with normalized modes, a link arrives as the same link and is never followed, and every input
// that could not mean anything (a special file, an `out`, a bad name) is refused before the agent runs.
// As root, a source file of mode 0000 would still be readable; these tests use 0600 sources so
// they mean the same as any user.

import { execFileSync } from "node:child_process";
import { chmod, link, lstat, mkdir, mkdtemp, opendir, readdir, readFile, readlink, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyInputs, StagingError, type RunInputs } from "./inputs.js";
import { MAX_INPUT_BYTES, MAX_INPUT_DEPTH, MAX_INPUT_ENTRIES } from "./limits.js";
import { prepareRunDirectory } from "./prepare.js";

type Entry =
  | { readonly type: "directory"; readonly mode: number }
  | { readonly type: "file"; readonly mode: number; readonly content: Buffer }
  | { readonly type: "symlink"; readonly target: string }
  | { readonly type: "other" };

/** Every entry below `root` by relative path, found without following links. */
async function tree(root: string): Promise<Record<string, Entry>> {
  const entries: Record<string, Entry> = {};
  const visit = async (directory: string, prefix: string): Promise<void> => {
    for await (const dirent of await opendir(directory)) {
      const full = join(directory, dirent.name);
      const rel = prefix === "" ? dirent.name : `${prefix}/${dirent.name}`;
      const stats = await lstat(full);
      const mode = stats.mode & 0o7777;
      if (stats.isDirectory()) {
        entries[rel] = { type: "directory", mode };
        await visit(full, rel);
      } else if (stats.isFile()) entries[rel] = { type: "file", mode, content: await readFile(full) };
      else if (stats.isSymbolicLink()) entries[rel] = { type: "symlink", target: await readlink(full) };
      else entries[rel] = { type: "other" };
    }
  };
  await visit(root, "");
  return entries;
}

const file = (content: string | Buffer, mode = 0o444): Entry => ({ type: "file", mode, content: Buffer.from(content) });
const directory = (mode = 0o755): Entry => ({ type: "directory", mode });

const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
const NON_ASCII_NAME = "café ☕ 日本.txt";
const RUN_ID = "0123456789abcdef";

let scratch: string;
let source: string;
let work: string;
/** Outside every input: what a link in the source points at. */
let host: string;
let servers: Server[];

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "agentcage-inputs-"));
  source = join(scratch, "source");
  work = join(scratch, "work");
  host = join(scratch, "host");
  await mkdir(source);
  await mkdir(work);
  await mkdir(host);
  servers = [];
});

afterEach(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(scratch, { recursive: true, force: true });
});

async function writeSource(relative: string, content: string | Buffer, mode = 0o600): Promise<void> {
  const full = join(source, relative);
  await mkdir(join(full, ".."), { recursive: true });
  await writeFile(full, content, { mode });
  await chmod(full, mode);
}

/** The StagingError `promise` rejects with; fails the test if it resolves or rejects otherwise. */
async function stagingError(promise: Promise<unknown>): Promise<StagingError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(StagingError);
  return error as StagingError;
}

const copy = (inputs: RunInputs, fileMode = 0o444) => copyInputs(inputs, work, { fileMode });

describe("copyInputs from an input directory", () => {
  it("copies a tree byte-exact with files 0444 and directories 0755", async () => {
    await writeSource("README.md", "# hello\n", 0o644);
    await writeSource("src/lib/deep/every-byte.bin", EVERY_BYTE, 0o755);
    await writeSource("src/main.ts", "export {};\n");
    await writeSource("empty.txt", "");
    await writeSource(NON_ASCII_NAME, "héllo wörld\n");
    await mkdir(join(source, "empty-dir"), { mode: 0o700 });
    await chmod(join(source, "src"), 0o700);

    const copied = await copy({ directory: source });

    expect(await tree(work)).toEqual({
      "README.md": file("# hello\n"),
      src: directory(),
      "src/lib": directory(),
      "src/lib/deep": directory(),
      "src/lib/deep/every-byte.bin": file(EVERY_BYTE),
      "src/main.ts": file("export {};\n"),
      "empty.txt": file(""),
      [NON_ASCII_NAME]: file("héllo wörld\n"),
      "empty-dir": directory(),
    });
    expect(copied).toEqual({ entries: 9, bytes: 8 + 256 + 11 + Buffer.byteLength("héllo wörld\n") });
  });

  it("copies files 0644 when work/ is writable", async () => {
    await writeSource("a.txt", "a", 0o600);
    await writeSource("sub/b.sh", "b", 0o755);

    await copy({ directory: source }, 0o644);

    expect(await tree(work)).toEqual({
      "a.txt": file("a", 0o644),
      sub: directory(),
      "sub/b.sh": file("b", 0o644),
    });
  });

  it("leaves the input directory as it was", async () => {
    await writeSource("a.txt", "a", 0o600);
    await writeSource("sub/b.txt", "b", 0o640);
    await symlink("a.txt", join(source, "link"));
    const before = await tree(source);

    await copy({ directory: source });

    expect(await tree(source)).toEqual(before);
  });

  it("copies a nested directory named out, since only the top-level out/ is the agent's", async () => {
    await writeSource("docs/out/notes.txt", "n");

    await copy({ directory: source });

    expect(await tree(work)).toEqual({
      docs: directory(),
      "docs/out": directory(),
      "docs/out/notes.txt": file("n"),
    });
  });
});

describe("copyInputs with a link in the input directory", () => {
  it("copies each link as a link with the same target, whatever it points at", async () => {
    await writeFile(join(host, "canary.txt"), "host canary\n");
    await writeSource("target.txt", "t");
    await symlink(join(host, "canary.txt"), join(source, "absolute"));
    await symlink("../host/canary.txt", join(source, "relative-out"));
    await symlink("target.txt", join(source, "relative-in"));
    await symlink("/nowhere/at/all", join(source, "dangling"));

    await copy({ directory: source });

    expect(await tree(work)).toEqual({
      "target.txt": file("t"),
      absolute: { type: "symlink", target: join(host, "canary.txt") },
      "relative-out": { type: "symlink", target: "../host/canary.txt" },
      "relative-in": { type: "symlink", target: "target.txt" },
      dangling: { type: "symlink", target: "/nowhere/at/all" },
    });
  });

  it("does not descend into a linked directory outside the input directory", async () => {
    await writeFile(join(host, "secret.txt"), "host secret\n");
    // A FIFO beyond the link: staging would refuse it if it walked through the link.
    execFileSync("mkfifo", [join(host, "pipe")]);
    await symlink(host, join(source, "linked-dir"));

    await copy({ directory: source });

    expect(await tree(work)).toEqual({ "linked-dir": { type: "symlink", target: host } });
  });

  it("never opens the host file a link points at", async () => {
    // Opening a FIFO for reading blocks until a writer comes: following this link would hang.
    execFileSync("mkfifo", [join(host, "pipe")]);
    await symlink(join(host, "pipe"), join(source, "to-pipe"));

    await copy({ directory: source });

    expect(await tree(work)).toEqual({ "to-pipe": { type: "symlink", target: join(host, "pipe") } });
  });

  it("refuses an input directory that is itself a link, naming it", async () => {
    await symlink(source, join(scratch, "link-to-source"));

    const error = await stagingError(copy({ directory: join(scratch, "link-to-source") }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(
      `input directory ${JSON.stringify(join(scratch, "link-to-source"))} is not a directory (links are not followed); pass the directory itself`,
    );
  });
});

describe("copyInputs with a hard link in the input directory", () => {
  /** Every file's bytes staged in work/, found without following a link. */
  const stagedBytes = async () =>
    Object.values(await tree(work))
      .map((entry) => (entry.type === "file" ? entry.content.toString("latin1") : ""))
      .join("");

  it("refuses a file whose other name is outside the input directory, naming it, and copies none of its bytes", async () => {
    await writeFile(join(host, "secret.txt"), "host secret\n", { mode: 0o600 });
    await writeSource("a.txt", "a");
    await mkdir(join(source, "sub"));
    await link(join(host, "secret.txt"), join(source, "sub", "x"));

    const error = await stagingError(copy({ directory: source }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(
      'input "sub/x" is a hard link (link count 2), whose bytes may be a file\'s outside the input directory; leave it out with inputs.exclude: ["sub/x"], or put a copy of the file there',
    );
    expect(await stagedBytes()).not.toContain("host secret");
  });

  it("refuses two names of one file inside it too: a link count cannot say where the other names are", async () => {
    await writeSource("a.txt", "a");
    await link(join(source, "a.txt"), join(source, "b.txt"));

    const error = await stagingError(copy({ directory: source }));

    expect(error.message).toMatch(/^input "[ab]\.txt" is a hard link \(link count 2\)/);
  });

  it("copies the rest when exclude leaves the hard link out", async () => {
    await writeFile(join(host, "secret.txt"), "host secret\n", { mode: 0o600 });
    await writeSource("a.txt", "a");
    await link(join(host, "secret.txt"), join(source, "x"));

    await copy({ directory: source, exclude: ["x"] });

    expect(await tree(work)).toEqual({ "a.txt": file("a") });
  });
});

describe("copyInputs refuses", () => {
  it("a FIFO, quoting it", async () => {
    await writeSource("sub/a.txt", "a");
    execFileSync("mkfifo", [join(source, "sub", "pipe")]);

    const error = await stagingError(copy({ directory: source }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('input "sub/pipe" is not a file, directory or link (a FIFO, socket or device); leave it out with inputs.exclude: ["sub/pipe"]');
  });

  it("a unix socket, quoting it", async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(source, "socket"), resolve));

    const error = await stagingError(copy({ directory: source }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('input "socket" is not a file, directory or link (a FIFO, socket or device); leave it out with inputs.exclude: ["socket"]');
  });

  it.each([
    ["a directory", async () => void (await mkdir(join(source, "out")))],
    ["a file", async () => void (await writeFile(join(source, "out"), "planted"))],
    ["a link", async () => void (await symlink(host, join(source, "out")))],
  ])("a top-level out that is %s", async (_kind, plant) => {
    await plant();

    const error = await stagingError(copy({ directory: source }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(
      `input directory ${JSON.stringify(source)} already has "out", where the agent writes; leave it out with inputs.exclude: ["out"], or rename it`,
    );
  });

  it("a relative input directory", async () => {
    const error = await stagingError(copy({ directory: "inputs/here" }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('input directory "inputs/here" is not absolute; pass an absolute path');
  });

  it("a missing input directory", async () => {
    const missing = join(scratch, "missing");

    const error = await stagingError(copy({ directory: missing }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(`input directory ${JSON.stringify(missing)} cannot be read (ENOENT); pass an existing directory`);
  });

  it("an input directory that is a file", async () => {
    const notADirectory = join(scratch, "file.txt");
    await writeFile(notADirectory, "x");

    const error = await stagingError(copy({ directory: notADirectory }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(`input directory ${JSON.stringify(notADirectory)} is not a directory (links are not followed); pass the directory itself`);
  });
});

describe("copyInputs with inputs.exclude", () => {
  beforeEach(async () => {
    await writeSource("src/main.ts", "export {};\n");
    await writeSource("out/index.html", "<p>a build</p>\n");
    await writeSource("node_modules/left-pad/index.js", "module.exports = 1;\n");
    await writeSource("packages/web/node_modules/react/index.js", "module.exports = 2;\n");
    await writeSource(".cache/deep/node_modules/x.js", "3\n");
    await writeSource("packages/web/dist/bundle.js", "bundle\n");
    await writeSource("docs/out/kept.md", "an out that is not the top-level one\n");
  });

  it("leaves out what the globs match, at the depth they say, and copies the rest", async () => {
    const copied = await copy({ directory: source, exclude: ["out", "**/node_modules", "packages/*/dist/"] });

    expect(Object.keys(await tree(work)).sort()).toEqual([
      ".cache",
      ".cache/deep",
      "docs",
      "docs/out",
      "docs/out/kept.md",
      "packages",
      "packages/web",
      "src",
      "src/main.ts",
    ]);
    expect(copied.entries).toBe(9);
  });

  it("never lists what it leaves out: a FIFO or a link below it is not refused", async () => {
    execFileSync("mkfifo", [join(source, "node_modules", "pipe")]);
    await symlink(host, join(source, "out", "host"));

    await copy({ directory: source, exclude: ["out", "node_modules"] });

    expect(Object.keys(await tree(work)).sort()).not.toContain("node_modules");
  });

  it("matches only the top-level name when the glob has no **", async () => {
    await copy({ directory: source, exclude: ["out", "node_modules"] });

    const staged = Object.keys(await tree(work));
    expect(staged).toContain("packages/web/node_modules/react/index.js");
    expect(staged).toContain("docs/out/kept.md");
    expect(staged).not.toContain("node_modules");
  });

  it.each<[string, unknown, string]>([
    ["a string, not a list", "node_modules", 'inputs.exclude "node_modules" is not a list; pass globs of paths to leave out, like "node_modules" or "**/dist"'],
    [
      "an absolute path",
      ["/srv/out"],
      'inputs.exclude[0] "/srv/out" is absolute; write a path relative to the input directory, like "node_modules" or "**/dist"',
    ],
    ["a negation", ["out", "!src"], 'inputs.exclude[1] "!src" is a negation, which exclude does not take; list only what to leave out'],
    [
      "a climb",
      ["src/../../etc"],
      'inputs.exclude[0] "src/../../etc" climbs out of the input directory; write a path inside it, like "node_modules" or "**/dist"',
    ],
    ["an empty pattern", ["./"], 'inputs.exclude[0] "./" is empty; write a glob, like "node_modules" or "**/dist"'],
    ["not a string", [3], 'inputs.exclude[0] 3 is not a string; write a glob, like "node_modules" or "**/dist"'],
  ])("refuses %s, naming and quoting it, before anything is copied", async (_what, exclude, message) => {
    const error = await stagingError(copy({ directory: source, exclude: exclude as string[] }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(message);
    expect(await readdir(work)).toEqual([]);
  });

  it("refuses a named file that an exclusion would leave out, and an exclusion with no directory", async () => {
    const named = await stagingError(copy({ directory: source, files: { "dist/app.js": "x" }, exclude: ["dist"] }));
    expect(named.message).toBe('inputs.files names "dist/app.js", which inputs.exclude leaves out; drop one of the two');

    const alone = await stagingError(copy({ files: { "a.txt": "a" }, exclude: ["dist"] }));
    expect(alone.message).toBe("inputs.exclude leaves paths out of inputs.directory, and there is none; pass the directory, or drop exclude");
    expect(await readdir(work)).toEqual([]);
  });
});

describe("copyInputs from files", () => {
  it("writes each file at its relative path, creating directories 0755", async () => {
    await copy({
      files: {
        "prompt-context.md": "context\n",
        "src/lib/util.ts": "export const x = 1;\n",
        [`data/${NON_ASCII_NAME}`]: new Uint8Array(EVERY_BYTE),
        "empty.txt": "",
      },
    });

    expect(await tree(work)).toEqual({
      "prompt-context.md": file("context\n"),
      src: directory(),
      "src/lib": directory(),
      "src/lib/util.ts": file("export const x = 1;\n"),
      data: directory(),
      [`data/${NON_ASCII_NAME}`]: file(EVERY_BYTE),
      "empty.txt": file(""),
    });
  });

  it("writes files 0644 when work/ is writable", async () => {
    await copy({ files: { "a/b.txt": "b" } }, 0o644);

    expect(await tree(work)).toEqual({ a: directory(), "a/b.txt": file("b", 0o644) });
  });

  it("writes files next to a copied input directory", async () => {
    await writeSource("src/main.ts", "main");

    await copy({ directory: source, files: { "src/extra.ts": "extra", "notes.txt": "notes" } });

    expect(await tree(work)).toEqual({
      src: directory(),
      "src/main.ts": file("main"),
      "src/extra.ts": file("extra"),
      "notes.txt": file("notes"),
    });
  });

  it.each(["/abs", "../x", "a/../../x", "a//b", "", "a/./b", "./a", "a/", ".", "..", "a\0b"])(
    "refuses the file name %j as not a plain relative path",
    async (name) => {
      const error = await stagingError(copy({ files: { [name]: "x" } }));

      expect(error.kind).toBe("invalid_input");
      expect(error.message).toBe(`input file name ${JSON.stringify(name)} is not a plain relative path; write it like "src/main.ts"`);
      expect(await readdir(work)).toEqual([]);
    },
  );

  it.each(["out", "out/x", "out/nested/answer.txt"])("refuses the file name %j as inside out/", async (name) => {
    const error = await stagingError(copy({ files: { [name]: "x" } }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(`input file ${JSON.stringify(name)} is inside "out", where the agent writes; choose another path`);
    expect(await readdir(work)).toEqual([]);
  });

  it("refuses a file name the input directory already has, keeping the copied file", async () => {
    await writeSource("src/main.ts", "from the directory");

    const error = await stagingError(copy({ directory: source, files: { "src/main.ts": "from files" } }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('input file "src/main.ts" is handed over twice (or is also in the input directory); keep one');
    expect(await readFile(join(work, "src", "main.ts"), "utf8")).toBe("from the directory");
  });

  it("refuses a file name that is a directory of the input directory", async () => {
    await writeSource("src/main.ts", "main");

    const error = await stagingError(copy({ directory: source, files: { src: "x" } }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('input file "src" is handed over twice (or is also in the input directory); keep one');
  });
});

describe("the input limits", () => {
  it("are named constants with their units", () => {
    expect({ MAX_INPUT_ENTRIES, MAX_INPUT_BYTES, MAX_INPUT_DEPTH }).toEqual({
      MAX_INPUT_ENTRIES: 250_000,
      MAX_INPUT_BYTES: 4 * 1024 * 1024 * 1024,
      MAX_INPUT_DEPTH: 64,
    });
  });

  it("copies a tree exactly MAX_INPUT_DEPTH directories deep", async () => {
    const deepest = Array.from({ length: MAX_INPUT_DEPTH }, () => "d").join("/");
    await writeSource(`${deepest}/leaf.txt`, "leaf");

    await copy({ directory: source });

    expect((await tree(work))[`${deepest}/leaf.txt`]).toEqual(file("leaf"));
  });

  it("refuses a directory one level past MAX_INPUT_DEPTH, naming it", async () => {
    const tooDeep = Array.from({ length: MAX_INPUT_DEPTH + 1 }, () => "d").join("/");
    await mkdir(join(source, tooDeep), { recursive: true });

    const error = await stagingError(copy({ directory: source }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(`input ${JSON.stringify(tooDeep)} is deeper than 64 levels (MAX_INPUT_DEPTH); hand over a shallower tree`);
  });

  it("refuses a sparse file one byte past MAX_INPUT_BYTES before copying it", async () => {
    await writeSource("huge.bin", "");
    await truncate(join(source, "huge.bin"), MAX_INPUT_BYTES + 1);

    const error = await stagingError(copy({ directory: source }));

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe(`inputs pass ${MAX_INPUT_BYTES} bytes (MAX_INPUT_BYTES) at "huge.bin"; hand over a smaller tree`);
    expect(await readdir(work)).toEqual([]);
  });
});

describe("prepareRunDirectory with refused inputs", () => {
  it("refuses a FIFO in the input directory and leaves no Run directory behind", async () => {
    const runtimeDir = join(scratch, "runtime");
    await writeSource("a.txt", "a");
    execFileSync("mkfifo", [join(source, "pipe")]);

    const error = await stagingError(
      prepareRunDirectory({
        runtimeDir,
        runId: RUN_ID,
        owner: "tests",
        inputs: { directory: source },
        promptText: "hi",
        writableWork: false,
        agentUser: "agent",
      }),
    );

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('input "pipe" is not a file, directory or link (a FIFO, socket or device); leave it out with inputs.exclude: ["pipe"]');
    expect(await readdir(runtimeDir)).toEqual([]);
  });

  it.each<[string, RunInputs]>([
    ["a top-level out", { files: { "out/answer.txt": "planted" } }],
    ["a bad file name", { files: { "../escape.txt": "x" } }],
    ["a relative input directory", { directory: "relative" }],
  ])("refuses %s and leaves no Run directory behind", async (_what, inputs) => {
    const runtimeDir = join(scratch, "runtime");

    const error = await stagingError(
      prepareRunDirectory({ runtimeDir, runId: RUN_ID, owner: "tests", inputs, promptText: "hi", writableWork: false, agentUser: "agent" }),
    );

    expect(error.kind).toBe("invalid_input");
    expect(await readdir(runtimeDir)).toEqual([]);
    expect((await readdir(scratch)).sort()).toEqual(["host", "runtime", "source", "work"]);
  });
});

describe("input files next to a copied link", () => {
  it("refuse to be written through a link from the input directory, leaving the host untouched", async () => {
    const base = await mkdtemp(join(tmpdir(), "agentcage-inputs-link-"));
    try {
      const host = join(base, "host");
      const source = join(base, "source");
      const work = join(base, "work");
      await mkdir(host);
      await mkdir(source);
      await mkdir(work);
      await symlink(host, join(source, "link"));
      const error = await copyInputs({ directory: source, files: { "link/planted.txt": "x", "link/new/dir/x": "y" } }, work, { fileMode: 0o444 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StagingError);
      expect((error as StagingError).kind).toBe("invalid_input");
      expect((error as StagingError).message).toContain('goes through "link", which is a file or a link');
      expect(await readdir(host)).toEqual([]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("name a conflict between two input files as the caller's input, not a disk problem", async () => {
    const base = await mkdtemp(join(tmpdir(), "agentcage-inputs-conflict-"));
    try {
      const error = await copyInputs({ files: { a: "x", "a/b": "y" } }, base, { fileMode: 0o444 }).catch((e: unknown) => e);
      expect((error as StagingError).kind).toBe("invalid_input");
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("make their directories 0755 whatever the umask", async () => {
    const base = await mkdtemp(join(tmpdir(), "agentcage-inputs-umask-"));
    const previous = process.umask(0o027);
    try {
      await copyInputs({ files: { "x/y/z.txt": "z" } }, base, { fileMode: 0o444 });
      expect((await lstat(join(base, "x"))).mode & 0o777).toBe(0o755);
      expect((await lstat(join(base, "x", "y"))).mode & 0o777).toBe(0o755);
    } finally {
      process.umask(previous);
      await rm(base, { recursive: true, force: true });
    }
  });
});
