// The input archive's rules, on real tar bytes and a real disk: what a good archive becomes, fed at
// any chunk size, and each hostile archive refused naming its entry, with nothing written outside
// the directory it was given.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import tar, { type Header } from "tar-stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractInputs, InputsError } from "./archive-extract.js";
import { MAX_ARCHIVE_ENTRIES } from "./limits.js";

type Item = { readonly header: Partial<Header> & { name: string }; readonly content?: string | Buffer };

/** The bytes of a tar archive holding `items`, as tar-stream writes them (whatever their names and types). */
async function tarOf(items: readonly Item[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const item of items) {
    await new Promise<void>((resolve, reject) => pack.entry(item.header, item.content ?? "", (error) => (error ? reject(error) : resolve())));
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

const chunked = (bytes: Buffer, size: number) =>
  Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));

let parent: string;
let target: string;

beforeEach(() => {
  // <parent>/run is the Run's directory, made by each test; its inputs/ is made by the extraction.
  parent = mkdtempSync(join(tmpdir(), "agentcage-inputs-"));
  target = join(parent, "run", "inputs");
  writeFileSync(join(parent, "neighbour.txt"), "not the Run's\n");
});

afterEach(() => rmSync(parent, { recursive: true, force: true }));

function makeRunDirectory(): void {
  mkdirSync(join(parent, "run"));
}

/** Every path below `root`, relative, sorted. */
function tree(root: string): string[] {
  return (readdirSync(root, { recursive: true, encoding: "utf8" }) as string[]).sort();
}

async function refusal(items: readonly Item[]): Promise<InputsError> {
  makeRunDirectory();
  const outside = tree(parent).filter((path) => !path.startsWith("run"));
  const error = await extractInputs(Readable.from([await tarOf(items)]), target).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputsError);
  // Nothing but the Run's own directory changed.
  expect(tree(parent).filter((path) => !path.startsWith("run"))).toEqual(outside);
  return error as InputsError;
}

const good: Item[] = [
  { header: { name: "./", type: "directory" } },
  { header: { name: "./README.md" }, content: "# inputs\n" },
  { header: { name: "src/", type: "directory", mode: 0o700 } },
  { header: { name: "src/main.ts", mode: 0o4755 }, content: "console.log(1);\n" },
  { header: { name: "deep/er/than/declared.txt" }, content: Buffer.from([0, 1, 2, 255]) },
  { header: { name: `long/${"n".repeat(150)}.txt` }, content: "a name past ustar's 100 bytes\n" },
  { header: { name: "empty.txt" } },
];

describe("an input archive that keeps the rules", () => {
  for (const size of [1, 2, 3, 7, 64, Number.POSITIVE_INFINITY]) {
    it(`is extracted whole, fed ${size === Number.POSITIVE_INFINITY ? "all at once" : `${size} bytes at a time`}`, async () => {
      makeRunDirectory();
      const bytes = await tarOf(good);
      const summary = await extractInputs(size === Number.POSITIVE_INFINITY ? Readable.from([bytes]) : chunked(bytes, size), target);
      expect(summary).toEqual({ files: 5, directories: 5, bytes: 9 + 16 + 4 + 30 });
      expect(readFileSync(join(target, "README.md"), "utf8")).toBe("# inputs\n");
      expect(readFileSync(join(target, "src/main.ts"), "utf8")).toBe("console.log(1);\n");
      expect([...readFileSync(join(target, "deep/er/than/declared.txt"))]).toEqual([0, 1, 2, 255]);
      expect(readFileSync(join(target, "long", `${"n".repeat(150)}.txt`), "utf8")).toBe("a name past ustar's 100 bytes\n");
      expect(readFileSync(join(target, "empty.txt"), "utf8")).toBe("");
    });
  }

  it("gets modes of its own, never the archive's: 0700 for the top, 0755 directories, 0644 files", async () => {
    makeRunDirectory();
    await extractInputs(Readable.from([await tarOf(good)]), target);
    expect(statSync(target).mode & 0o7777).toBe(0o700);
    expect(statSync(join(target, "src")).mode & 0o7777).toBe(0o755);
    expect(statSync(join(target, "src/main.ts")).mode & 0o7777).toBe(0o644);
  });

  it("refuses a directory that already exists: the inputs are made fresh", async () => {
    makeRunDirectory();
    await extractInputs(Readable.from([await tarOf(good)]), target);
    await expect(extractInputs(Readable.from([await tarOf(good)]), target)).rejects.toMatchObject({ code: "EEXIST" });
  });
});

describe("a hostile input archive", () => {
  it("is refused for an absolute name, naming it", async () => {
    const error = await refusal([{ header: { name: "/tmp/agentcage-absolute-escape" }, content: "x" }]);
    expect(error).toMatchObject({ statusCode: 400, message: expect.stringContaining('"/tmp/agentcage-absolute-escape" is an absolute name') });
    expect(existsSync("/tmp/agentcage-absolute-escape")).toBe(false);
  });

  for (const name of ["../escape.txt", "a/../../escape.txt", "ok/../escape.txt"]) {
    it(`is refused for ${JSON.stringify(name)}, which climbs out`, async () => {
      const error = await refusal([{ header: { name: "a/", type: "directory" } }, { header: { name }, content: "x" }]);
      expect(error.message).toContain(`${JSON.stringify(name)} climbs out of the archive with ".."`);
    });
  }

  it("is refused for a symbolic link, naming it and where it points", async () => {
    const error = await refusal([{ header: { name: "passwd", type: "symlink", linkname: "/etc/passwd" } }]);
    expect(error.message).toBe('inputs entry "passwd" is a symbolic link (to "/etc/passwd"); links are refused: put the file itself in the archive');
  });

  it("is refused for a hard link, even to a file inside it", async () => {
    const error = await refusal([{ header: { name: "a.txt" }, content: "a" }, { header: { name: "b.txt", type: "link", linkname: "a.txt" } }]);
    expect(error.message).toContain('"b.txt" is a hard link (to "a.txt")');
  });

  for (const type of ["character-device", "block-device", "fifo", "contiguous-file"] as const) {
    it(`is refused for a ${type} entry`, async () => {
      const error = await refusal([{ header: { name: "dev/thing", type, devmajor: 1, devminor: 3 } }]);
      expect(error.message).toMatch(/^inputs entry "dev\/thing" is (a character-device|a block-device|a FIFO|of type "contiguous-file")/);
    });
  }

  it(`is refused at the entry past MAX_ARCHIVE_ENTRIES (${MAX_ARCHIVE_ENTRIES}), for 10,000 of them`, async () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ header: { name: `f${i + 1}` } }));
    const error = await refusal(items);
    expect(error.message).toBe(
      `inputs entry "f${MAX_ARCHIVE_ENTRIES + 1}" is past MAX_ARCHIVE_ENTRIES (${MAX_ARCHIVE_ENTRIES} files and directories); send fewer files`,
    );
  });

  it("is refused for a tree deeper than its limit, for a file over its size, and past its total", async () => {
    makeRunDirectory();
    const extract = async (items: Item[], limits: object) => {
      rmSync(target, { recursive: true, force: true });
      return extractInputs(Readable.from([await tarOf(items)]), target, { limits }).catch((e: unknown) => e as InputsError);
    };
    expect(await extract([{ header: { name: "a/b/c/", type: "directory" } }], { depth: 2 })).toMatchObject({
      message: expect.stringContaining('"a/b/c/" is 3 directories deep, over MAX_ARCHIVE_DEPTH (2)'),
    });
    expect(await extract([{ header: { name: "a/b/c.txt" } }], { depth: 2 })).toMatchObject({ files: 1 });
    expect(await extract([{ header: { name: "a/b/c/d.txt" } }], { depth: 2 })).toMatchObject({
      message: expect.stringContaining('"a/b/c/d.txt" lies 3 directories deep'),
    });
    expect(await extract([{ header: { name: "big" }, content: "12345" }], { fileBytes: 4 })).toMatchObject({
      message: expect.stringContaining('"big" is 5 bytes, over MAX_ARCHIVE_FILE_BYTES (4)'),
    });
    expect(
      await extract(
        [
          { header: { name: "one" }, content: "123" },
          { header: { name: "two" }, content: "123" },
        ],
        { totalBytes: 5 },
      ),
    ).toMatchObject({
      message: expect.stringContaining('"two" takes the archive\'s files past MAX_ARCHIVE_TOTAL_BYTES (5 bytes)'),
    });
  });

  it("is refused for a name given twice, and for a file under a name it made a file", async () => {
    expect(
      (
        await refusal([
          { header: { name: "a.txt" }, content: "1" },
          { header: { name: "a.txt" }, content: "2" },
        ])
      ).message,
    ).toContain('"a.txt" names what the archive already holds');
    rmSync(join(parent, "run"), { recursive: true, force: true });
    expect(
      (
        await refusal([
          { header: { name: "a" }, content: "1" },
          { header: { name: "a/b.txt" }, content: "2" },
        ])
      ).message,
    ).toContain('"a/b.txt" lies under "a", which the archive made a file');
  });

  it("is refused for anything in out/, where the agent writes", async () => {
    expect((await refusal([{ header: { name: "./out/answer.txt" }, content: "forged" }])).message).toContain(
      '"./out/answer.txt" is inside "out", where the agent writes',
    );
  });

  it("is refused when it is no tar at all, gzipped, or cut short", async () => {
    makeRunDirectory();
    const tryBytes = async (bytes: Buffer) => {
      rmSync(target, { recursive: true, force: true });
      return extractInputs(Readable.from([bytes]), target).catch((e: unknown) => e as InputsError);
    };
    const { gzipSync } = await import("node:zlib");
    const bytes = await tarOf(good);
    for (const bad of [Buffer.alloc(1024, 7), gzipSync(bytes), bytes.subarray(0, 700)]) {
      expect(await tryBytes(bad)).toMatchObject({
        statusCode: 400,
        message: expect.stringMatching(/^the inputs part is not a whole, uncompressed tar archive \(.+\); make it with tar -cf, not gzipped$/),
      });
    }
  });

  it("is stopped when its deadline passes (408), and the upload is let go", async () => {
    makeRunDirectory();
    const never = new Readable({ read() {} });
    never.push((await tarOf(good)).subarray(0, 512));
    const controller = new AbortController();
    const extraction = extractInputs(never, target, { signal: controller.signal });
    controller.abort();
    await expect(extraction).rejects.toMatchObject({ statusCode: 408, message: expect.stringContaining("INPUT_UPLOAD_TIMEOUT_MS") });
    expect(never.destroyed).toBe(true);
  });
});
