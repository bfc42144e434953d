// How the console writes out text it did not write, checked on what diff2html makes of a hostile
// patch: no control or bidi character reaches the markup raw, and the diff keeps its lines.

import { html, parse } from "diff2html";
import { describe, expect, it } from "vitest";
import { shown, shownPatch } from "./text";

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE_PATCH = [
  "diff --git a/notes-\u202etxt.md b/notes-\u202etxt.md",
  "--- a/notes-\u202etxt.md",
  "+++ b/notes-\u202etxt.md",
  "@@ -1,2 +1,3 @@",
  " the first line\r",
  "-what reads\rwhat applies",
  "+\u001b[2J\u202egnp.exe",
  "+\u2066isolated\u2069 \u200fmarked\u200e \u061c\u0085\u009b",
  "",
].join("\n");

describe("shownPatch", () => {
  it("hands diff2html lines whose control and bidi characters are written out, so its markup holds none raw", () => {
    const markup = html(shownPatch(HOSTILE_PATCH), { drawFileList: true, outputFormat: "line-by-line", matching: "lines" });
    expect(markup).not.toMatch(RAW);
    // Its highlighting of what changed within a line splits a line's text across elements.
    const text = markup.replace(/<[^>]*>/g, "");
    expect(text).toContain("\\x1b[2J\\u{202e}gnp.exe");
    // Its file names come from the lines as written out (it prints their "\\" as "/", which the patch view puts back).
    expect(parse(shownPatch(HOSTILE_PATCH))[0]?.newName).toBe("notes-\\u{202e}txt.md");
  });

  it("keeps every line of the diff where it was: a lone carriage return is written out, a CRLF line end is a line end", () => {
    expect(shownPatch(HOSTILE_PATCH).split("\n").length).toBe(HOSTILE_PATCH.split("\n").length);
    expect(shownPatch(HOSTILE_PATCH)).toContain("\n the first line\n-what reads\\x0dwhat applies\n+\\x1b[2J\\u{202e}gnp.exe\n");
    const markup = html(shownPatch(HOSTILE_PATCH), { outputFormat: "line-by-line", matching: "lines" });
    expect(markup.match(/class="d2h-code-line-prefix">-</g)?.length).toBe(1);
    expect(markup.match(/class="d2h-code-line-prefix">\+</g)?.length).toBe(2);
  });

  it("leaves a patch of plain text as it was", () => {
    const plain = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+one\ttwo, שלום ✔\n";
    expect(shownPatch(plain)).toBe(plain);
    expect(shown("\u202e")).toBe("\\u{202e}");
  });
});
