// Putting a staged tree into a Run's volume and taking it back: packTree's entries are the tree's,
// owned by the agent's uid with their modes; measureTree counts what a tmpfs would; a packed tree
// copied back (with links) has the staged entries as staged by carryManifest, and an edit changed.

import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { carryManifest, copyFromArchive, measureTree, packTree, takeManifest } from "./index.js";
import { lstat } from "node:fs/promises";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-archive-pack-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let made = 0;

/** As the change set tells an entry as staged: the same inode, size and change time. */
const unchanged = (before: { ino: bigint; size: bigint; ctimeNs: bigint } | undefined, now: { ino: bigint; size: bigint; ctimeNs: bigint }) =>
  before !== undefined && before.ino === now.ino && before.size === now.size && before.ctimeNs === now.ctimeNs;

function tree(): string {
  const root = join(scratch, `tree-${made++}`);
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "a.txt"), "one\n");
  writeFileSync(join(root, "src", "b.sh"), "echo b\n");
  chmodSync(join(root, "src", "b.sh"), 0o755);
  writeFileSync(join(root, "big"), Buffer.alloc(5000));
  symlinkSync("a.txt", join(root, "to-a"));
  return root;
}

async function bytesOf(archive: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The packed tree under a root directory entry, as an engine's archive of the volume reads. */
async function asVolumeArchive(packed: Buffer): Promise<Readable> {
  const extract = tar.extract();
  const pack = tar.pack();
  const out: Buffer[] = [];
  const reading = (async () => {
    for await (const chunk of pack) out.push(chunk as Buffer);
  })();
  pack.entry({ name: "work/", type: "directory", mode: 0o755 });
  const copying = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      pack.entry({ ...entry.header, name: `work/${entry.header.name}` }, Buffer.concat(chunks));
    }
  })();
  extract.end(packed);
  await copying;
  pack.finalize();
  await reading;
  return Readable.from([Buffer.concat(out)]);
}

describe("a staged tree put into a Run's volume", () => {
  it("packs every entry owned by the agent's uid with its mode, links as links", async () => {
    const root = tree();
    const packed = packTree(root, { uid: 10002, gid: 10003 });
    const [bytes, counted] = await Promise.all([bytesOf(packed.archive), packed.done]);
    const extract = tar.extract();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const entry of extract) {
        const h = entry.header;
        seen.push(`${h.name} ${h.type} ${h.uid}:${h.gid} ${(h.mode ?? 0).toString(8)}${h.linkname ? ` -> ${h.linkname}` : ""}`);
        entry.resume();
      }
    })();
    extract.end(bytes);
    await reading;
    expect(seen.sort()).toEqual([
      "a.txt file 10002:10003 644",
      "big file 10002:10003 644",
      "src/ directory 10002:10003 755",
      "src/b.sh file 10002:10003 755",
      "to-a symlink 10002:10003 777 -> a.txt",
    ]);
    // a.txt, b.sh: a page each; big: two.
    expect(counted).toEqual({ usedBytes: 4 * 4096, entries: 5 });
    expect(await measureTree(root)).toEqual(counted);
  });

  it("refuses a FIFO, naming it", async () => {
    const root = tree();
    execFileSync("mkfifo", [join(root, "pipe")]);
    const packed = packTree(root, undefined);
    packed.archive.resume();
    await expect(packed.done).rejects.toThrow(/"pipe" is not a file, directory or link/);
  });

  it("comes back with what is as staged carried over, and an edit still changed", async () => {
    const staged = tree();
    const manifest = await takeManifest(staged);
    const packed = packTree(staged, undefined);
    const [bytes] = await Promise.all([bytesOf(packed.archive), packed.done]);
    const copy = `${staged}.volume`;
    mkdirSync(copy);
    const copied = await copyFromArchive(await asVolumeArchive(bytes), copy, {
      maxBytes: 1024 * 1024,
      maxEntries: 10,
      maxDepth: 4,
      place: "work/",
      links: true,
    });
    expect(copied.refusal).toBeUndefined();
    // What the agent edited in its volume (here, in the copy).
    writeFileSync(join(copy, "a.txt"), "one\nedited\n");
    expect(readlinkSync(join(copy, "to-a"))).toBe("a.txt");
    const carried = await carryManifest(manifest, staged, copy);
    const now = async (rel: string) => {
      const s = await lstat(join(copy, rel), { bigint: true });
      return { ino: s.ino, size: s.size, ctimeNs: s.ctimeNs };
    };
    expect(unchanged(carried.get("big"), await now("big"))).toBe(true);
    expect(unchanged(carried.get("src/b.sh"), await now("src/b.sh"))).toBe(true);
    expect(unchanged(carried.get("to-a"), await now("to-a"))).toBe(true);
    expect(unchanged(carried.get("a.txt"), await now("a.txt"))).toBe(false);
    // A mode the agent changed is a change too.
    execFileSync("chmod", ["600", join(copy, "big")]);
    expect(unchanged((await carryManifest(manifest, staged, copy)).get("big"), await now("big"))).toBe(false);
  });
});
