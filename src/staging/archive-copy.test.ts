// The copy of a Run's out/ volume back from the engine's archive: files and directories land below
// the destination with their modes; a link, a device, a setuid mode, a name outside the root, too
// many entries or more bytes than the volume holds each refuse the copy with the Harvest's reason.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import tar, { type Header } from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { copyFromArchive } from "./index.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-archive-copy-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const LIMITS = { maxBytes: 1024 * 1024, maxEntries: 10, maxDepth: 3 };
let made = 0;

async function archive(entries: ReadonlyArray<Partial<Header> & { name: string; content?: string }>): Promise<Readable> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const { content, ...header } of [{ name: "out/", type: "directory" as const, mode: 0o755 }, ...entries]) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(header, header.type === "file" || header.type === undefined ? (content ?? "") : "", (error) => (error ? reject(error) : resolve())),
    );
  }
  pack.finalize();
  await done;
  return Readable.from([Buffer.concat(chunks)]);
}

const fresh = () => mkdtempSync(join(scratch, `dest-${made++}-`));

describe("copyFromArchive", () => {
  it("writes the files and directories below the root, counting what a tmpfs would hold", async () => {
    const destination = fresh();
    const copy = await copyFromArchive(
      await archive([
        { name: "out/a.txt", content: "hello", mode: 0o600 },
        { name: "out/d/", type: "directory", mode: 0o755 },
        { name: "out/d/b.txt", content: "b" },
      ]),
      destination,
      LIMITS,
    );
    expect(copy).toEqual({ files: 2, directories: 1, bytes: 6, usedBytes: 8192, entries: 3 });
    expect(readFileSync(join(destination, "a.txt"), "utf8")).toBe("hello");
    expect(statSync(join(destination, "a.txt")).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(destination, "d"))).toEqual(["b.txt"]);
  });

  it("only counts when given no destination", async () => {
    const copy = await copyFromArchive(await archive([{ name: "out/a.txt", content: "x".repeat(5000) }]), undefined, LIMITS);
    expect(copy).toMatchObject({ files: 1, bytes: 5000, usedBytes: 8192 });
  });

  it.each([
    ["a symbolic link", { name: "out/l", type: "symlink" as const, linkname: "/etc/passwd" }, "symlink"],
    ["a hard link", { name: "out/h", type: "link" as const, linkname: "out/a.txt" }, "hardlink"],
    ["a FIFO", { name: "out/f", type: "fifo" as const }, "special_file"],
    ["a setuid file", { name: "out/s", mode: 0o4755, content: "x" }, "special_mode"],
    ["a name outside the root", { name: "elsewhere/x", content: "x" }, "bad_name"],
    ["a name climbing out", { name: "out/../x", content: "x" }, "bad_name"],
    ["a tree too deep", { name: "out/1/2/3/4/", type: "directory" as const }, "too_deep"],
    ["an absolute name", { name: "/out/x", content: "x" }, "bad_name"],
    [
      "one file past what the volume holds, as the Harvest on disk names it",
      { name: "out/sparse", content: "x".repeat(LIMITS.maxBytes + 1) },
      "file_too_large",
    ],
    ["files that together pass what the volume holds", { name: "out/b.txt", content: "x".repeat(LIMITS.maxBytes) }, "total_too_large"],
  ])("refuses %s", async (_, entry, reason) => {
    const copy = await copyFromArchive(await archive([{ name: "out/a.txt", content: "a" }, entry]), fresh(), LIMITS);
    expect(copy.refusal?.reason).toBe(reason);
  });

  // tar-stream writes a mode of 0 as its default (0755); the engine's archive of a chmod 000 directory is in the engine test.
  it.each(["040", "100", "400", "300"])(
    "refuses a directory of mode 0%s, which its owner cannot list and enter, as the Harvest on disk does",
    async (octal) => {
      const mode = Number.parseInt(octal, 8);
      const copy = await copyFromArchive(
        await archive([
          { name: "out/locked/", type: "directory", mode },
          { name: "out/locked/a.txt", content: "a" },
        ]),
        fresh(),
        LIMITS,
      );
      expect(copy.refusal).toMatchObject({ reason: "unreadable", entry: '"locked"', message: expect.stringContaining(`(mode 0${mode.toString(8)})`) });
    },
  );

  it("takes such a directory where the Harvest does not judge it (a writable work/ outside its out/), made 0755", async () => {
    const destination = fresh();
    const harvested = (relative: string) => relative === "out" || relative.startsWith("out/");
    const taken = await copyFromArchive(
      await archive([
        { name: "out/locked/", type: "directory", mode: 0o100 },
        { name: "out/locked/a.txt", content: "a" },
      ]),
      destination,
      { ...LIMITS, harvested },
    );
    expect(taken.refusal).toBeUndefined();
    expect(statSync(join(destination, "locked")).mode & 0o777).toBe(0o755);
    const inOut = await copyFromArchive(await archive([{ name: "out/out/", type: "directory", mode: 0o100 }]), fresh(), { ...LIMITS, harvested });
    expect(inOut.refusal).toMatchObject({ reason: "unreadable", entry: '"out"' });
  });

  it("refuses more entries than the volume's inodes", async () => {
    const entries = Array.from({ length: LIMITS.maxEntries + 1 }, (_, i) => ({ name: `out/f${i}`, content: "x" }));
    const copy = await copyFromArchive(await archive(entries), fresh(), LIMITS);
    expect(copy.refusal).toMatchObject({ reason: "too_many_entries", entry: '"f10"' });
  });
});
