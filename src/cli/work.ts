// Where a Run's work went, in a line or two for the summary: the files harvested into --out, the
// changes a writable workspace came back with, or why the Harvest refused.

import type { AgentOutcome } from "../agents/index.js";

type Harvest = NonNullable<AgentOutcome["harvest"]>;

export function workNotes(harvest: Harvest | undefined, out: string | undefined, patchOnStdout: boolean): string[] {
  if (harvest === undefined) return [];
  if (!harvest.ok) return [`nothing harvested: ${harvest.refusal.message}`];
  const changes = harvest.changes;
  if (changes !== undefined) {
    const counted = `${changes.added.length} added, ${changes.changed.length} changed, ${changes.deleted.length} deleted`;
    const where = patchOnStdout ? "the patch is on stdout" : `the patch is ${out}/changes.patch, the changed files in ${out}/files/`;
    const undiffed = changes.undiffed.length === 0 ? "" : `; ${changes.undiffed.length} left out of the patch (binary or too large): see changes.json`;
    return [`changes: ${counted}; ${where}${undiffed}`];
  }
  if (out === undefined) return [];
  return [`harvested ${harvest.files} file${harvest.files === 1 ? "" : "s"} (${harvest.bytes.toLocaleString("en-US")} bytes) into ${out}`];
}
