// The Harvest's listing against real trees (its worker thread and a pinned source): its records come
// in parts while it goes on, in walk order with indices that run across parts; it never runs more
// than its lead past the records taken, and once stopped it ends without listing the rest.

import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listSource, releaseDirectories, type ListedRecord, type Listing } from "./listing.js";
import { openSource, type PinnedDirectory } from "./source.js";
import { observed } from "./stat-checks.js";

const LIMITS = { maxEntries: 1_000_000, maxDepth: 8 };

let root: string;
let pinned: PinnedDirectory | undefined;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentcage-listing-"));
  await mkdir(path.join(root, "out"));
});

afterEach(async () => {
  await unpin();
  await rm(root, { recursive: true, force: true });
});

/** Closes the source a listing pinned. */
async function unpin(): Promise<void> {
  await pinned?.handle.close();
  pinned = undefined;
}

async function files(directory: string, count: number): Promise<void> {
  await mkdir(path.join(root, "out", directory), { recursive: true });
  await Promise.all(Array.from({ length: count }, (_, index) => writeFile(path.join(root, "out", directory, `f${index}`), "x")));
}

let listings = 0;

/** A listing of out/ that makes its directories in a new directory of its own. */
async function list(pace: { readonly partRecords: number; readonly aheadRecords: number }): Promise<Listing> {
  const source = await openSource(path.join(root, "out"));
  if ("reason" in source) throw new Error(source.message);
  pinned = source;
  const target = path.join(root, `made-${listings++}`);
  await mkdir(target);
  return listSource(source.path.toString(), source.handle.fd, observed(source.stats), target, LIMITS, pace);
}

const openDescriptors = async (): Promise<number> => (await readdir("/proc/self/fd")).length;

describe("the Harvest's listing", () => {
  it("hands its records over in parts as it goes, in walk order, each directory before what it holds", async () => {
    await files("a", 30);
    await files("b/c", 30);
    const listing = await list({ partRecords: 8, aheadRecords: 16 });
    const parts: (readonly ListedRecord[])[] = [];
    for await (const part of listing.parts) parts.push(part);
    const ended = await listing.ended;
    await releaseDirectories([], ended.fds);

    expect(ended.complete).toBe(true);
    // 67 records: at least 9 parts of at most 8.
    expect(parts.length).toBeGreaterThanOrEqual(9);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(8);
    const records = parts.flat();
    // 63 entries (a, b, b/c and 60 files) and the ends of the source and its 3 directories.
    expect(records.filter((record) => record.kind === "entry")).toHaveLength(63);
    expect(records.filter((record) => record.kind === "end")).toHaveLength(4);
    // An index is a record's place among all the listing's records: a parent is an earlier directory.
    for (const record of records) {
      const parent = record.kind === "entry" ? record.parent : record.directory;
      if (parent === -1) continue;
      const directory = records[parent];
      expect(directory).toMatchObject({ kind: "entry" });
      expect(records.indexOf(directory as ListedRecord)).toBeLessThan(records.indexOf(record));
    }
  });

  it("waits while it is its lead past the records taken, and ends at once when stopped, listing no more", async () => {
    await files("many", 3000);
    // Once whole first, so the listing's worker threads (each with descriptors of its own) have started.
    const warm = await list({ partRecords: 16, aheadRecords: 64 });
    let listed = 0;
    for await (const part of warm.parts) listed += part.length;
    // The 3,000 files, their directory, and its end and the source's.
    expect(listed).toBe(3003);
    await releaseDirectories([], (await warm.ended).fds);
    await unpin();
    const before = await openDescriptors();

    const listing = await list({ partRecords: 16, aheadRecords: 64 });
    const parts = listing.parts[Symbol.asyncIterator]();
    const first = await parts.next();
    // Time to run ahead, were it not held to its lead.
    await new Promise((resolve) => setTimeout(resolve, 300));
    listing.stop();
    const seen = [first.value as readonly ListedRecord[]];
    for (let next = await parts.next(); next.done !== true; next = await parts.next()) seen.push(next.value);
    const ended = await listing.ended;
    await releaseDirectories([], ended.fds);

    expect(ended.complete).toBe(false);
    // The first part taken, then at most its lead past it: never the 3,000 names.
    expect(seen.flat().length).toBeGreaterThan(16);
    expect(seen.flat().length).toBeLessThanOrEqual(16 + 64);
    expect(seen.flat().every((record) => record.kind === "entry" && record.makeFailure === undefined)).toBe(true);
    await unpin();
    expect(await openDescriptors()).toBe(before);
  });
});
