// Where a Run's work went, in a line or two for the summary: the files harvested into --out, the
// changes a writable workspace came back with (and its own out/, kept beside them), or why the
// Harvest refused. A change whose patch holds bidi or control characters is said so, its files'
// names written out.

import type { AgentOutcome } from "../runner/index.js";
import { printableName } from "../staging/index.js";
import { MAX_NAMED_BIDI_FILES } from "./limits.js";

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
    return [none ? "changes: none to the inputs" : `changes: ${counted}; ${where}${undiffed}`, ...bidiNote(changes.bidiOrControl ?? []), ...agentOut];
  }
  if (out === undefined) return [];
  return [`harvested ${harvest.files} file${harvest.files === 1 ? "" : "s"} (${harvest.bytes.toLocaleString("en-US")} bytes) into ${out}`];
}

/** The line that says the patch may read differently from what applies, naming (written out) its first files. */
function bidiNote(paths: readonly string[]): string[] {
  if (paths.length === 0) return [];
  const named = paths.slice(0, MAX_NAMED_BIDI_FILES).map((path) => printableName(Buffer.from(path)));
  const more = paths.length > MAX_NAMED_BIDI_FILES ? ` and ${paths.length - MAX_NAMED_BIDI_FILES} more (see changes.json)` : "";
  return [`the change holds bidi or control characters (a line of the patch may read differently from what applies) in ${named.join(", ")}${more}`];
}
