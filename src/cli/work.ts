// Where a Run's work went, in a line or two for the summary: the files harvested into --out, the
// changes a writable workspace came back with (and its own out/, kept beside them), or why the
// Harvest refused.

import type { AgentOutcome } from "../runner/index.js";

type Harvest = NonNullable<AgentOutcome["harvest"]>;

export function workNotes(harvest: Harvest | undefined, out: string | undefined, patchOnStdout: boolean): string[] {
  if (harvest === undefined) return [];
  if (!harvest.ok) return [`nothing harvested: ${harvest.refusal.message}`];
  const changes = harvest.changes;
  if (changes !== undefined) {
    const none = changes.added.length + changes.changed.length + changes.deleted.length === 0;
    const counted = `${changes.added.length} added, ${changes.changed.length} changed, ${changes.deleted.length} deleted`;
    const where = patchOnStdout
      ? "the patch is on stdout"
      : out === undefined
        ? "the patch was not kept"
        : `the patch is ${out}/changes.patch, the changed files in ${out}/files/`;
    const undiffed = changes.undiffed.length === 0 ? "" : `; ${changes.undiffed.length} left out of the patch (binary or too large): see changes.json`;
    const outFiles = changes.outFiles ?? 0;
    const files = `${outFiles} file${outFiles === 1 ? "" : "s"}`;
    const agentOut =
      outFiles === 0
        ? []
        : [
            out === undefined
              ? `the agent's out/ held ${files}, not kept: pass --out DIR to keep them in DIR/out/`
              : `the agent's out/ (${files}) is in ${out}/out/`,
          ];
    return [none ? "changes: none to the inputs" : `changes: ${counted}; ${where}${undiffed}`, ...agentOut];
  }
  if (out === undefined) return [];
  return [`harvested ${harvest.files} file${harvest.files === 1 ? "" : "s"} (${harvest.bytes.toLocaleString("en-US")} bytes) into ${out}`];
}
