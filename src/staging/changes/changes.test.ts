// What an agent changed in a writable work/, collected and harvested, on the real file system: the
// change set of a tree as deep as its inputs may be, the same lists whatever order the walk meets
// entries in, and a refusal for each entry the Harvest would not take.

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_HARVEST_DEPTH, MAX_HARVEST_ENTRIES } from "../harvest/index.js";
import { harvestChanges, takeManifest } from "./index.js";
import { MAX_CHANGES_DEPTH } from "./limits.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-changes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string) => join(scratch, `${name}-${++counter}`);

/** Inputs made of `files` (relative path to text), staged into a writable work/ and its manifest taken. */
async function staged(files: Record<string, string>) {
  const inputs = fresh("inputs");
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(inputs, rel, ".."), { recursive: true });
    writeFileSync(join(inputs, rel), text);
  }
  const work = fresh("work");
  cpSync(inputs, work, { recursive: true });
  const manifest = await takeManifest(work);
  const harvestTo = (destination = fresh("destination"), exclude?: readonly string[]) =>
    harvestChanges(work, { manifest, originals: { directory: inputs, ...(exclude === undefined ? {} : { exclude }) } }, fresh("changes"), destination);
  return { inputs, work, harvestTo };
}

describe("a writable work/'s manifest and change set", () => {
  it("comes back from a directory as deep as the inputs were, deeper than the Harvest takes from out/", async () => {
    const deep = Array.from({ length: MAX_HARVEST_DEPTH }, (_, i) => `d${i + 1}`).join("/");
    const { work, harvestTo } = await staged({ [`${deep}/file.txt`]: "one\n", "top.txt": "top\n" });
    writeFileSync(join(work, deep, "file.txt"), "one, edited\n");
    const destination = fresh("destination");
    const result = await harvestTo(destination);
    expect(result).toMatchObject({ ok: true, changes: { added: [], changed: [`${deep}/file.txt`], deleted: [] } });
    expect(readFileSync(join(destination, "files", deep, "file.txt"), "utf8")).toBe("one, edited\n");
  });

  it("lists what was added, changed and deleted, sorted, with a patch git applies, whatever order the walk met them in", async () => {
    const files: Record<string, string> = {};
    // More entries than the walk's first columns hold (1,024), so they grow on the way.
    for (let d = 0; d < 6; d++) for (let f = 0; f < 175; f++) files[`pkg${d}/src/f${f}.ts`] = `export const v${d}_${f} = ${f};\n`;
    const { inputs, work, harvestTo } = await staged(files);
    for (let d = 0; d < 6; d++) {
      writeFileSync(join(work, `pkg${d}/src/f${d * 5}.ts`), `export const v${d}_${d * 5} = "edited";\n`);
      unlinkSync(join(work, `pkg${d}/src/f${d * 5 + 1}.ts`));
      mkdirSync(join(work, `pkg${d}/gen`));
      writeFileSync(join(work, `pkg${d}/gen/new.ts`), `export const made = ${d};\n`);
    }
    writeFileSync(join(work, "pkg0/src/binary.bin"), Buffer.from([1, 0, 2]));
    const destination = fresh("destination");
    const result = await harvestTo(destination);
    const range = [0, 1, 2, 3, 4, 5];
    expect(result).toMatchObject({
      ok: true,
      changes: {
        added: ["pkg0/src/binary.bin", ...range.map((d) => `pkg${d}/gen/new.ts`)].sort(),
        changed: range.map((d) => `pkg${d}/src/f${d * 5}.ts`).sort(),
        deleted: range.map((d) => `pkg${d}/src/f${d * 5 + 1}.ts`).sort(),
        undiffed: ["pkg0/src/binary.bin"],
      },
    });
    const copy = fresh("applied");
    cpSync(inputs, copy, { recursive: true });
    execFileSync("git", ["apply", join(destination, "changes.patch")], { cwd: copy });
    expect(readFileSync(join(copy, "pkg3/src/f15.ts"), "utf8")).toBe('export const v3_15 = "edited";\n');
    expect(readFileSync(join(copy, "pkg3/gen/new.ts"), "utf8")).toBe("export const made = 3;\n");
  });

  it("lists a changed file whose original cannot be read again as undiffed, never as a file the patch creates", async () => {
    const { inputs, work, harvestTo } = await staged({ "a/kept.txt": "kept\n", "a/gone.txt": "gone\n" });
    writeFileSync(join(work, "a/kept.txt"), "kept, edited\n");
    writeFileSync(join(work, "a/gone.txt"), "gone, edited\n");
    unlinkSync(join(inputs, "a/gone.txt"));
    const destination = fresh("destination");
    expect(await harvestTo(destination)).toMatchObject({ ok: true, changes: { changed: ["a/gone.txt", "a/kept.txt"], undiffed: ["a/gone.txt"] } });
    const patch = readFileSync(join(destination, "changes.patch"), "utf8");
    expect(patch).toContain("+kept, edited");
    expect(patch).not.toContain("gone");
    expect(readFileSync(join(destination, "files/a/gone.txt"), "utf8")).toBe("gone, edited\n");
  });

  it("names the files whose lines in the patch hold a bidi or control character, and none for tabs and CRLF line ends", async () => {
    const { work, harvestTo } = await staged({ "README.md": "the first line\n", "plain.txt": "plain\n", "crlf.txt": "one\r\n" });
    writeFileSync(join(work, "README.md"), "the first line\n\u001b[2J\u202egnp.exe\n");
    writeFileSync(join(work, "plain.txt"), "plain\n\tindented\n");
    writeFileSync(join(work, "crlf.txt"), "one\r\ntwo\r\n");
    writeFileSync(join(work, "notes-\u202etxt.md"), "a plain line in a file whose name holds an override\n");
    writeFileSync(join(work, "lone-cr.txt"), "what reads\rwhat applies\n");
    const destination = fresh("destination");
    const result = await harvestTo(destination);
    const flagged = ["README.md", "lone-cr.txt", "notes-\u202etxt.md"];
    expect(result).toMatchObject({
      ok: true,
      changes: { added: ["lone-cr.txt", "notes-\u202etxt.md"], changed: ["README.md", "crlf.txt", "plain.txt"], bidiOrControl: flagged },
    });
    expect(JSON.parse(readFileSync(join(destination, "changes.json"), "utf8"))).toMatchObject({ bidiOrControl: flagged });
    // The patch itself is what applies: it keeps the characters as they are.
    expect(readFileSync(join(destination, "changes.patch"), "utf8")).toContain("+\u001b[2J\u202egnp.exe\n");
  });

  it("says nothing of bidi or control characters when the patch holds none", async () => {
    const { work, harvestTo } = await staged({ "a.txt": "one\n" });
    writeFileSync(join(work, "a.txt"), "one\ttwo\n");
    const result = await harvestTo();
    expect(result.ok && result.changes !== undefined && "bidiOrControl" in result.changes).toBe(false);
  });

  it("is taken of links as links, never of what they point at", async () => {
    const inputs = fresh("inputs");
    mkdirSync(join(inputs, "a"), { recursive: true });
    writeFileSync(join(inputs, "a/one.txt"), "one\n");
    symlinkSync("/etc", join(inputs, "etc-link"));
    const manifest = await takeManifest(inputs);
    expect([...manifest.keys()].sort()).toEqual(["a", "a/one.txt", "etc-link"]);
    expect(manifest.get("etc-link")?.kind).toBe("symlink");
    expect(manifest.get("a/one.txt")).toMatchObject({ kind: "file", size: 4n });
  });

  it("is refused, naming the entry, for a link the agent made", async () => {
    const { work, harvestTo } = await staged({ "a/one.txt": "one\n" });
    symlinkSync("/etc/passwd", join(work, "a/link"));
    expect(await harvestTo()).toMatchObject({ ok: false, refusal: { reason: "symlink", entry: '"a/link"' } });
  });

  it("is refused for a special file the agent made", async () => {
    const { work, harvestTo } = await staged({ "a/one.txt": "one\n" });
    execFileSync("mkfifo", [join(work, "a/fifo")]);
    expect(await harvestTo()).toMatchObject({ ok: false, refusal: { reason: "special_file", entry: '"a/fifo"' } });
  });

  it("is refused once work/ holds more entries than were staged plus what a Harvest may take", async () => {
    const { work, harvestTo } = await staged({ "a/one.txt": "one\n" });
    mkdirSync(join(work, "many"));
    for (let i = 0; i <= MAX_HARVEST_ENTRIES + 1; i++) writeFileSync(join(work, "many", `f${i}`), "");
    expect(await harvestTo()).toMatchObject({ ok: false, refusal: { reason: "too_many_entries" } });
  });

  it("leaves out what the inputs' exclusions name, however much the agent made there, and keeps its own out/ beside, whatever they say", async () => {
    const { work, harvestTo } = await staged({ "src/main.ts": "one\n" });
    writeFileSync(join(work, "src/main.ts"), "one, edited\n");
    // An install the inputs left out: more files than a change set may hold, a link and a FIFO among them.
    mkdirSync(join(work, "node_modules/pkg"), { recursive: true });
    for (let i = 0; i <= MAX_HARVEST_ENTRIES + 1; i++) writeFileSync(join(work, "node_modules/pkg", `f${i}.js`), "");
    symlinkSync("/etc/passwd", join(work, "node_modules/link"));
    execFileSync("mkfifo", [join(work, "node_modules/fifo")]);
    writeFileSync(join(work, "src/debug.log"), "noise\n");
    mkdirSync(join(work, "out"));
    writeFileSync(join(work, "out/run.log"), "the agent's own report\n");
    const destination = fresh("destination");

    const result = await harvestTo(destination, ["node_modules", "**/*.log"]);

    expect(result).toMatchObject({ ok: true, changes: { added: [], changed: ["src/main.ts"], deleted: [], outFiles: 1 } });
    expect(readFileSync(join(destination, "out/run.log"), "utf8")).toBe("the agent's own report\n");
    expect(readFileSync(join(destination, "changes.patch"), "utf8")).not.toContain("node_modules");
  });

  it("brings the agent's out/ back beside the changes, never in the patch, and refuses a link in it by its path in work/", async () => {
    const { inputs, work, harvestTo } = await staged({ "src/main.ts": "one\n" });
    mkdirSync(join(work, "out/notes"), { recursive: true });
    writeFileSync(join(work, "out/notes/summary.md"), "what I did\n");
    writeFileSync(join(work, "src/main.ts"), "one, edited\n");
    const destination = fresh("destination");

    const result = await harvestTo(destination);

    expect(result).toMatchObject({ ok: true, changes: { added: [], changed: ["src/main.ts"], outFiles: 1 } });
    expect(readFileSync(join(destination, "out/notes/summary.md"), "utf8")).toBe("what I did\n");
    expect(JSON.parse(readFileSync(join(destination, "changes.json"), "utf8"))).toMatchObject({ changed: ["src/main.ts"], outFiles: 1 });
    const copy = fresh("applied");
    cpSync(inputs, copy, { recursive: true });
    execFileSync("git", ["apply", join(destination, "changes.patch")], { cwd: copy });
    expect(readFileSync(join(copy, "src/main.ts"), "utf8")).toBe("one, edited\n");

    symlinkSync("/etc/passwd", join(work, "out/notes/link"));
    const refused = await harvestTo();
    expect(refused).toMatchObject({ ok: false, refusal: { reason: "symlink", entry: '"out/notes/link"' } });
    expect(refused.ok ? "" : refused.refusal.message).toMatch(/^"out\/notes\/link" /);
  });

  it("comes back whole when the agent edited a file in each of many deep modules, however many directories mirror them", async () => {
    // 700 files, each alone three directories down: the change set holds 700 files in 2,101
    // directories, more entries together than MAX_HARVEST_ENTRIES, though the agent made only 700.
    const modules = 700;
    const files: Record<string, string> = {};
    for (let i = 0; i < modules; i++) files[`m${i}/src/lib/index.ts`] = `export const m${i} = ${i};\n`;
    const { work, harvestTo } = await staged(files);
    for (let i = 0; i < modules; i++) writeFileSync(join(work, `m${i}/src/lib/index.ts`), `export const m${i} = "edited";\n`);
    const destination = fresh("destination");
    const result = await harvestTo(destination);
    expect(result).toMatchObject({ ok: true, files: modules + 2, directories: 1 + 3 * modules });
    expect(result.ok && result.changes?.changed.length).toBe(modules);
    expect(readFileSync(join(destination, "files", "m699/src/lib/index.ts"), "utf8")).toBe('export const m699 = "edited";\n');
  });

  it("is refused, before anything is copied, once the agent added or changed more files than MAX_HARVEST_ENTRIES", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i <= MAX_HARVEST_ENTRIES; i++) files[`d${i % 4}/f${i}`] = "";
    const { work, harvestTo } = await staged(files);
    for (let i = 0; i <= MAX_HARVEST_ENTRIES; i++) writeFileSync(join(work, `d${i % 4}/f${i}`), "edited\n");
    const result = await harvestTo();
    expect(result).toMatchObject({ ok: false, refusal: { reason: "too_many_entries" } });
    expect(result.ok ? "" : result.refusal.message).toBe(
      `the agent added or changed ${MAX_HARVEST_ENTRIES + 1} files, more than MAX_HARVEST_ENTRIES (${MAX_HARVEST_ENTRIES}); change fewer files in one Run, or leave the generated ones out of work/`,
    );
  });

  it("is refused for a tree deeper than MAX_CHANGES_DEPTH", async () => {
    const { work, harvestTo } = await staged({ "a/one.txt": "one\n" });
    mkdirSync(join(work, ...Array.from({ length: MAX_CHANGES_DEPTH + 2 }, (_, i) => `l${i}`)), { recursive: true });
    expect(await harvestTo()).toMatchObject({ ok: false, refusal: { reason: "too_deep" } });
  });
});
