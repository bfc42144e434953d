// A Harvest read back on a real disk: listed with sizes and sha256, one file opened by its path, the
// whole tree as a tar; a path that escapes or a link planted in the tree is never followed.

import { createHash } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tar from "tar-stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractInputs, InputsError } from "./archive-extract.js";
import { listArtifacts, openArtifact, packArtifacts, packInputs } from "./harvest-files.js";

let parent: string;
let harvest: string;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), "agentcage-artifacts-"));
  harvest = join(parent, "harvest");
  mkdirSync(join(harvest, "sub", "deeper"), { recursive: true });
  writeFileSync(join(harvest, "answer.txt"), "written by the stand-in model\n");
  writeFileSync(join(harvest, "sub", "deeper", "b.bin"), Buffer.from([0, 255]));
  writeFileSync(join(parent, "secret.txt"), "outside the Harvest\n");
});

afterEach(() => rmSync(parent, { recursive: true, force: true }));

async function untar(stream: AsyncIterable<unknown>): Promise<Record<string, string>> {
  const extract = tar.extract();
  const entries: Record<string, string> = {};
  const feeding = (async () => {
    for await (const chunk of stream) extract.write(chunk as Buffer);
    extract.end(undefined);
  })();
  for await (const entry of extract) {
    let text = "";
    for await (const chunk of entry) text += (chunk as Buffer).toString("latin1");
    entries[`${entry.header.name} ${entry.header.type} ${(entry.header.mode ?? 0).toString(8)}`] = text;
  }
  await feeding;
  return entries;
}

describe("a Harvest's artifacts", () => {
  it("are listed with size and sha256, sorted by path", async () => {
    expect(await listArtifacts(harvest)).toEqual([
      { path: "answer.txt", size: 30, sha256: sha256("written by the stand-in model\n") },
      {
        path: "sub/deeper/b.bin",
        size: 2,
        sha256: createHash("sha256")
          .update(Buffer.from([0, 255]))
          .digest("hex"),
      },
    ]);
  });

  it("are none when nothing was harvested", async () => {
    expect(await listArtifacts(join(parent, "missing"))).toEqual([]);
  });

  it("leave out a link planted in the tree, and never follow one", async () => {
    symlinkSync(join(parent, "secret.txt"), join(harvest, "evil"));
    symlinkSync(parent, join(harvest, "sub", "up"));
    expect((await listArtifacts(harvest)).map((file) => file.path)).toEqual(["answer.txt", "sub/deeper/b.bin"]);
    expect(await openArtifact(harvest, "evil")).toEqual({ refused: 'artifact "evil" is a link; links are never followed' });
    expect(await openArtifact(harvest, "sub/up/secret.txt")).toEqual({
      refused: 'artifact path "sub/up/secret.txt" goes through a link; links are never followed',
    });
    expect(Object.keys(await untar(packArtifacts(harvest)))).not.toContainEqual(expect.stringMatching(/evil|up/));
  });

  it("open one file by its path, and refuse a path that escapes", async () => {
    const opened = await openArtifact(harvest, "sub/deeper/b.bin");
    expect(opened).toMatchObject({ size: 2 });
    if (opened !== undefined && "handle" in opened) await opened.handle.close();
    for (const path of ["../secret.txt", "sub/../../secret.txt", "./answer.txt", "sub//deeper/b.bin", "answer.txt/", "a\0b"]) {
      expect(await openArtifact(harvest, path), path).toMatchObject({ refused: expect.stringContaining("is not a plain relative path inside the Harvest") });
    }
    expect(await openArtifact(harvest, "sub")).toMatchObject({ refused: expect.stringContaining("is not a regular file") });
    expect(await openArtifact(harvest, "nothing.txt")).toBeUndefined();
    expect(await openArtifact(harvest, "answer.txt/more")).toBeUndefined();
  });

  it("come as one tar: directories 0755 before what they hold, files 0644", async () => {
    expect(await untar(packArtifacts(harvest))).toEqual({
      "answer.txt file 644": "written by the stand-in model\n",
      "sub/ directory 755": "",
      "sub/deeper/ directory 755": "",
      "sub/deeper/b.bin file 644": "\u0000\u00ff",
    });
  });
});

describe("an input directory packed for an upload", () => {
  it("comes as the artifacts' tar, links left out", async () => {
    symlinkSync(join(parent, "secret.txt"), join(harvest, "evil"));
    expect(await untar(packInputs(harvest))).toEqual(await untar(packArtifacts(harvest)));
  });

  it("is refused for a hard link, naming it, with none of its bytes extracted", async () => {
    linkSync(join(parent, "secret.txt"), join(harvest, "sub", "linked.txt"));
    const to = join(parent, "extracted");

    const error = await extractInputs(packInputs(harvest), to).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(InputsError);
    expect(error).toMatchObject({
      statusCode: 400,
      message:
        'inputs entry "sub/linked.txt" is a hard link (link count 2), whose bytes may be a file\'s outside the directory; links are refused: put a copy of the file there instead',
    });
    expect(readdirSync(to, { recursive: true })).not.toContain(join("sub", "linked.txt"));
  });
});
