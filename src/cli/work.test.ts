// The summary's lines on a Run's work: where the patch and the agent's out/ went, and never a
// path that is not there (no --out means nothing was written beside the command).

import { describe, expect, it } from "vitest";
import { workNotes } from "./work.js";

const writable = {
  ok: true as const,
  files: 3,
  directories: 2,
  bytes: 131,
  changes: { added: [], changed: ["a.txt"], deleted: [], undiffed: [], bytes: 10, outFiles: 1 },
};

describe("workNotes", () => {
  it("names --out's paths when the change set was kept there", () => {
    expect(workNotes(writable, "/tmp/kept", false)).toEqual([
      "changes: 0 added, 1 changed, 0 deleted; the patch is /tmp/kept/changes.patch, the changed files in /tmp/kept/files/",
      "the agent's out/ (1 file) is in /tmp/kept/out/",
    ]);
  });

  it("says the patch is on stdout and the agent's out/ was not kept without --out", () => {
    expect(workNotes(writable, undefined, true)).toEqual([
      "changes: 0 added, 1 changed, 0 deleted; the patch is on stdout",
      "the agent's out/ held 1 file, not kept: pass --out DIR to keep them in DIR/out/",
    ]);
  });

  it("says, after where the patch went, that the change holds bidi or control characters, naming its files written out", () => {
    const flagged = { ...writable, changes: { ...writable.changes, changed: ["a.txt", "notes-\u202etxt.md"], bidiOrControl: ["a.txt", "notes-\u202etxt.md"] } };
    const notes = workNotes(flagged, "/tmp/kept", false);
    expect(notes).toEqual([
      "changes: 0 added, 2 changed, 0 deleted; the patch is /tmp/kept/changes.patch, the changed files in /tmp/kept/files/",
      'the change holds bidi or control characters (a line of the patch may read differently from what applies) in "a.txt", "notes-\\u202etxt.md"',
      "the agent's out/ (1 file) is in /tmp/kept/out/",
    ]);
    expect(notes.join("\n")).not.toContain("\u202e");
    expect(workNotes(writable, "/tmp/kept", false).join("\n")).not.toContain("bidi");
  });

  it("names the first few files whose patch holds bidi or control characters, and counts the rest", () => {
    const many = Array.from({ length: 8 }, (_, i) => `f${i}.txt`);
    const notes = workNotes({ ...writable, changes: { ...writable.changes, changed: many, bidiOrControl: many } }, undefined, true);
    expect(notes[1]).toMatch(/ in "f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt" and 3 more \(see changes.json\)$/);
  });

  it("names no path under an --out that was not given when the patch could not be fetched either", () => {
    const notes = workNotes(writable, undefined, false);
    expect(notes.join("\n")).not.toContain("undefined");
    expect(notes).toEqual([
      "changes: 0 added, 1 changed, 0 deleted; the patch was not kept",
      "the agent's out/ held 1 file, not kept: pass --out DIR to keep them in DIR/out/",
    ]);
  });
});
