// One Run directory made on the local disk (no engine): its layout, modes and record, and who may
// write out/. Ownership by the agent's uid needs root: those tests run only as root (as they do
// here) and the others hold for any user.

import { lstat, mkdir, mkdtemp, opendir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StagingError } from "./inputs.js";
import { runDirectory } from "./layout.js";
import { numericUser, prepareRunDirectory, type PrepareOptions } from "./prepare.js";

const RUN_ID = "0123456789abcdef";
const NOW = "2030-01-02T03:04:05.678Z";
const asRoot = process.getuid?.() === 0;

let scratch: string;
let runtimeDir: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "agentcage-prepare-"));
  runtimeDir = join(scratch, "runtime");
  vi.useFakeTimers({ toFake: ["Date"], now: new Date(NOW) });
});

afterEach(async () => {
  vi.useRealTimers();
  await rm(scratch, { recursive: true, force: true });
});

const prepare = (options: Partial<PrepareOptions> = {}) =>
  prepareRunDirectory({
    runtimeDir,
    runId: RUN_ID,
    owner: "reviewer",
    inputs: { files: { "src/main.ts": "main" } },
    promptText: "Review this.",
    writableWork: false,
    agentUser: "agent",
    ...options,
  });

type Stat = { readonly mode: number; readonly uid: number; readonly gid: number };

/** Mode (permission bits), uid and gid of every entry below `root`, links not followed. */
async function owners(root: string): Promise<Record<string, Stat>> {
  const result: Record<string, Stat> = {};
  const visit = async (directory: string, prefix: string): Promise<void> => {
    for await (const dirent of await opendir(directory)) {
      const rel = prefix === "" ? dirent.name : `${prefix}/${dirent.name}`;
      const stats = await lstat(join(directory, dirent.name));
      result[rel] = { mode: stats.isSymbolicLink() ? 0 : stats.mode & 0o7777, uid: stats.uid, gid: stats.gid };
      if (stats.isDirectory()) await visit(join(directory, dirent.name), rel);
    }
  };
  await visit(root, "");
  return result;
}

const modeOf = async (path: string): Promise<number> => (await lstat(path)).mode & 0o7777;

describe("prepareRunDirectory", () => {
  it("returns the Run directory's layout under the Staging Directory", async () => {
    expect(await prepare()).toEqual(runDirectory(runtimeDir, RUN_ID));
  });

  it("makes <runtimeDir>/<runId>/ 0700 holding run.json, prompt.txt and work/", async () => {
    const dir = await prepare();

    expect(await modeOf(dir.root)).toBe(0o700);
    expect((await readdir(dir.root)).sort()).toEqual(["prompt.txt", "run.json", "work"]);
  });

  it("records the runId, owner and creation time in run.json", async () => {
    const dir = await prepare();

    expect(await readFile(dir.info, "utf8")).toBe(`${JSON.stringify({ runId: RUN_ID, owner: "reviewer", createdAt: NOW })}\n`);
  });

  it("writes the prompt byte-exact to prompt.txt, 0444", async () => {
    const dir = await prepare({ promptText: "Résume ce diff ✓\nline two\n" });

    expect(await readFile(dir.prompt, "utf8")).toBe("Résume ce diff ✓\nline two\n");
    expect(await modeOf(dir.prompt)).toBe(0o444);
  });

  it("makes work/ 0755 with the inputs and an empty out/", async () => {
    const dir = await prepare();

    expect(await modeOf(dir.work)).toBe(0o755);
    expect((await readdir(dir.work)).sort()).toEqual(["out", "src"]);
    expect(await readdir(dir.out)).toEqual([]);
    expect(await readFile(join(dir.work, "src", "main.ts"), "utf8")).toBe("main");
  });

  it("creates a missing Staging Directory, 0700", async () => {
    runtimeDir = join(scratch, "not", "yet", "there");

    const dir = await prepare();

    expect(await modeOf(runtimeDir)).toBe(0o700);
    expect(await readdir(runtimeDir)).toEqual([RUN_ID]);
    expect(dir.root).toBe(join(runtimeDir, RUN_ID));
  });

  it("keeps other Run directories of the Staging Directory as they are", async () => {
    await prepare({ runId: "fedcba9876543210", promptText: "first" });

    await prepare();

    expect((await readdir(runtimeDir)).sort()).toEqual([RUN_ID, "fedcba9876543210"]);
    expect(await readFile(join(runtimeDir, "fedcba9876543210", "prompt.txt"), "utf8")).toBe("first");
  });

  it("refuses a runId whose Run directory exists, as io, and leaves it untouched", async () => {
    const first = await prepare({ promptText: "first", inputs: { files: { "a.txt": "a" } } });
    await writeFile(join(first.out, "answer.txt"), "the first Run's answer");
    const before = await owners(first.root);

    const error = await prepare({ promptText: "second", inputs: { files: { "b.txt": "b" } } }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(error).toBeInstanceOf(StagingError);
    expect((error as StagingError).kind).toBe("io");
    expect((error as StagingError).message).toBe(
      `the Run directory ${JSON.stringify(first.root)} cannot be made (EEXIST); check the Staging Directory's permissions`,
    );
    expect(await owners(first.root)).toEqual(before);
    expect(await readFile(first.prompt, "utf8")).toBe("first");
    expect(await readFile(join(first.out, "answer.txt"), "utf8")).toBe("the first Run's answer");
  });

  it("refuses a Staging Directory that cannot be made, as io", async () => {
    await writeFile(join(scratch, "a-file"), "");
    runtimeDir = join(scratch, "a-file", "runtime");

    const error = await prepare().then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(error).toBeInstanceOf(StagingError);
    expect((error as StagingError).kind).toBe("io");
    expect((error as StagingError).message).toBe(
      `the Staging Directory ${JSON.stringify(runtimeDir)} cannot be made (ENOTDIR); create it or choose another runtimeDir`,
    );
  });
});

describe("out/ for the agent", () => {
  it.runIf(asRoot)('is owned by 10002:10002 when the agent user is "10002:10002" and we are root', async () => {
    const dir = await prepare({ agentUser: "10002:10002" });

    expect(await owners(dir.work)).toEqual({
      out: { mode: 0o755, uid: 10002, gid: 10002 },
      src: { mode: 0o755, uid: 0, gid: 0 },
      "src/main.ts": { mode: 0o444, uid: 0, gid: 0 },
    });
  });

  it.runIf(asRoot)('is owned by uid and gid 10002 when the agent user is "10002" and we are root', async () => {
    const dir = await prepare({ agentUser: "10002" });

    expect((await owners(dir.work)).out).toEqual({ mode: 0o755, uid: 10002, gid: 10002 });
  });

  it("is 0777 when the agent user is a name, which cannot be resolved to a uid", async () => {
    const dir = await prepare({ agentUser: "agent" });

    expect(await modeOf(dir.out)).toBe(0o777);
    expect(await modeOf(dir.work)).toBe(0o755);
    expect(await modeOf(join(dir.work, "src", "main.ts"))).toBe(0o444);
  });

  it("is left 0755 and ours when the agent runs as our own uid", async () => {
    const uid = process.getuid?.() ?? 0;

    const dir = await prepare({ agentUser: String(uid) });

    expect((await owners(dir.work)).out).toEqual({ mode: 0o755, uid, gid: process.getgid?.() ?? 0 });
  });
});

describe("a writable work/ for the agent", () => {
  it("copies files 0644 and grants all of work/ to a named agent: directories 0777, files 0666", async () => {
    const source = join(scratch, "source");
    await mkdir(join(source, "lib"), { recursive: true });
    await writeFile(join(source, "lib", "a.ts"), "a");
    await symlink("lib/a.ts", join(source, "link"));

    const dir = await prepare({ writableWork: true, agentUser: "agent", inputs: { directory: source, files: { "b.ts": "b" } } });

    const modes = Object.fromEntries(Object.entries(await owners(dir.work)).map(([path, stat]) => [path, stat.mode]));
    expect(modes).toEqual({ lib: 0o777, "lib/a.ts": 0o666, link: 0, "b.ts": 0o666, out: 0o777 });
    expect(await modeOf(dir.work)).toBe(0o777);
  });

  it("leaves work/ as staged when it reaches a numeric agent user as a volume of the Run's own (the archive makes the agent its owner)", async () => {
    const source = join(scratch, "source");
    await mkdir(join(source, "lib"), { recursive: true });
    await writeFile(join(source, "lib", "a.ts"), "a");
    const ours = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

    const dir = await prepare({ writableWork: true, agentUser: "10002:10003", ownedInVolume: true, inputs: { directory: source } });

    expect(await owners(dir.work)).toEqual({ lib: { mode: 0o755, ...ours }, "lib/a.ts": { mode: 0o644, ...ours }, out: { mode: 0o755, ...ours } });
  });

  it("still grants work/ to a named agent user in a volume, which the archive cannot make its owner", async () => {
    const dir = await prepare({ writableWork: true, agentUser: "agent", ownedInVolume: true, inputs: { files: { "b.ts": "b" } } });

    expect(await modeOf(join(dir.work, "b.ts"))).toBe(0o666);
  });

  it.runIf(asRoot)("chowns all of work/ to a numeric agent user, links included, when we are root", async () => {
    const source = join(scratch, "source");
    await mkdir(join(source, "lib"), { recursive: true });
    await writeFile(join(source, "lib", "a.ts"), "a");
    await symlink("lib/a.ts", join(source, "link"));

    const dir = await prepare({ writableWork: true, agentUser: "10002:10003", inputs: { directory: source } });

    expect(await owners(dir.work)).toEqual({
      lib: { mode: 0o755, uid: 10002, gid: 10003 },
      "lib/a.ts": { mode: 0o644, uid: 10002, gid: 10003 },
      link: { mode: 0, uid: 10002, gid: 10003 },
      out: { mode: 0o755, uid: 10002, gid: 10003 },
    });
    expect(await lstat(dir.work)).toMatchObject({ uid: 10002, gid: 10003 });
  });
});

describe("numericUser", () => {
  it.each([
    ["10002:10002", { uid: 10002, gid: 10002 }],
    ["10002:20", { uid: 10002, gid: 20 }],
    ["10002", { uid: 10002, gid: 10002 }],
    ["0", { uid: 0, gid: 0 }],
  ])("reads %j as a uid and gid", (user, expected) => {
    expect(numericUser(user)).toEqual(expected);
  });

  it.each(["agent", "agent:agent", "10002:agent", "", "10002:", ":10002", "-1"])("reads %j as a name", (user) => {
    expect(numericUser(user)).toBeUndefined();
  });
});
