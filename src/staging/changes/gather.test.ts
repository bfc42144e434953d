// The change set's file work in its worker, on the real file system: a file is copied only while it
// is the one the walk saw, never through a link, and read back no further than the size it had.

import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gather, type Gathered, type GatherTask } from "./gather.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-gather-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;

function places() {
  const root = join(scratch, `case-${++counter}`);
  const where = { work: join(root, "work"), files: join(root, "files"), originals: join(root, "originals"), maxDiffBytes: 1024 };
  for (const directory of [where.work, where.originals]) mkdirSync(join(directory, "a"), { recursive: true });
  mkdirSync(where.files);
  return where;
}

async function all(where: ReturnType<typeof places>, tasks: GatherTask[]): Promise<Gathered[]> {
  const results: Gathered[] = [];
  for await (const gathered of gather(where, tasks, () => 1)) results.push(gathered);
  return results;
}

const seen = (path: string) => {
  const stats = lstatSync(path, { bigint: true });
  return { ino: stats.ino, size: stats.size };
};

describe("gathering a change set", () => {
  it("copies the file the walk saw, making its directories, and reads both sides back", async () => {
    const where = places();
    writeFileSync(join(where.work, "a/one.txt"), "one, edited\n");
    writeFileSync(join(where.originals, "a/one.txt"), "one\n");
    const [result] = await all(where, [{ rel: "a/one.txt", copy: seen(join(where.work, "a/one.txt")), readNow: true, readOriginal: true }]);
    expect(Buffer.from(result?.now ?? []).toString()).toBe("one, edited\n");
    expect(Buffer.from(result?.original ?? []).toString()).toBe("one\n");
    expect(readFileSync(join(where.files, "a/one.txt"), "utf8")).toBe("one, edited\n");
  });

  it("copies nothing of a file that is no longer the one the walk saw, or that became a link", async () => {
    const where = places();
    writeFileSync(join(where.work, "a/grown.txt"), "grown since the walk\n");
    writeFileSync(join(scratch, "host.txt"), "host canary\n");
    symlinkSync(join(scratch, "host.txt"), join(where.work, "a/link.txt"));
    const walked = seen(join(where.work, "a/grown.txt"));
    const results = await all(where, [
      { rel: "a/grown.txt", copy: { ino: walked.ino, size: walked.size - 1n }, readNow: true, readOriginal: false },
      { rel: "a/link.txt", copy: seen(join(scratch, "host.txt")), readNow: true, readOriginal: false },
      { rel: "a/other.txt", copy: { ino: walked.ino + 1n, size: walked.size }, readNow: true, readOriginal: false },
    ]);
    expect(results).toEqual([{ replaced: true }, { replaced: true }, { replaced: true }]);
    expect(existsSync(join(where.files, "a"))).toBe(false);
  });
});
