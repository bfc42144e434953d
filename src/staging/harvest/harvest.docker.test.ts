// Hostile agents against the real engine: each plants one thing in out/ that the Harvest must
// refuse. The refusal names it, the caller's destination stays exactly as it was, and a host
// canary the planted links point at is never read into the harvest nor changed.

import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { TEST_IMAGE, capturingLogger, containersOfRun } from "../../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-hostile-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const canary = join(scratch, "canary.txt");
writeFileSync(canary, "host canary\n");
const inputs = join(scratch, "inputs");
mkdirSync(inputs);
writeFileSync(join(inputs, "README.md"), "read me\n");

const runtime = createAgentContainerRuntime({
  container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir: join(scratch, "runs") }, timeoutSeconds: 60 },
  run: (prompt) => ({ args: ["sh", "-c", prompt.text], stdin: "", outcome: async (stdout) => {
    for await (const _chunk of stdout) { /* drain */ }
    return { ok: true };
  } }),
});

/** What the agent did, the script that does it, the refusal's reason, and its entry (a pattern). */
const plants: ReadonlyArray<readonly [string, string, string, RegExp]> = [
  ["an absolute symlink to a host canary", `ln -s ${canary} out/link`, "symlink", /^"link"$/],
  ["a relative ../ symlink", "ln -s ../../../canary.txt out/up", "symlink", /^"up"$/],
  ["a symlinked directory", `mkdir out/real && ln -s ${scratch} out/real/dir`, "symlink", /^"real\/dir"$/],
  ["a hardlink (an input's cannot cross mounts, so one inside out/)", "echo a > out/a; ln README.md out/input-link 2>/dev/null || ln out/a out/b", "hardlink", /^"[ab]"$/],
  ["a FIFO", "mkfifo out/fifo", "special_file", /^"fifo"$/],
  ["a unix socket", "mksock out/sock", "special_file", /^"sock"$/],
  ["a sparse 1 TiB file", "truncate -s 1099511627776 out/sparse", "file_too_large", /^"sparse"$/],
  ["a 9-deep tree", "mkdir -p out/1/2/3/4/5/6/7/8/9 && echo deep > out/1/2/3/4/5/6/7/8/9/f", "too_deep", /^"1\/2\/3\/4\/5\/6\/7\/8\/9"$/],
  ["2001 files", "i=0; while [ $i -lt 2001 ]; do : > out/f$i; i=$((i+1)); done", "too_many_entries", /^"(f\d+|fine\.txt)"$/],
  ["a 9 MiB file", "head -c 9437184 /dev/zero > out/big", "file_too_large", /^"big"$/],
  ["a setuid file", "echo x > out/suid && chmod 4755 out/suid", "special_mode", /^"suid"$/],
  ["a 0000-mode file", "echo x > out/locked && chmod 000 out/locked", "unreadable", /^"locked"$/],
];

describe("a harvest of what a hostile agent planted", () => {
  it.each(plants)("refuses %s, naming it, with the destination and the canary unchanged", async (_what, script, reason, entry) => {
    const destination = join(scratch, `dest-${reason}-${Math.random().toString(16).slice(2)}`);
    mkdirSync(destination);
    writeFileSync(join(destination, "previous.txt"), "from an earlier harvest\n");
    const outcome = await runtime.run({ text: `echo fine > out/fine.txt; ${script}` }, { inputs: { directory: inputs }, harvestTo: destination, replaceHarvestTo: true });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason } } });
    const refusal = (outcome.harvest as { refusal: { entry: string; message: string } }).refusal;
    expect(refusal.entry).toMatch(entry);
    expect(outcome.error).toBe(refusal.message);
    expect(readdirSync(destination)).toEqual(["previous.txt"]);
    expect(readFileSync(join(destination, "previous.txt"), "utf8")).toBe("from an earlier harvest\n");
    expect(readdirSync(scratch).filter((n) => n.includes(".harvest-") || n.includes(".old-"))).toEqual([]);
    expect(readFileSync(canary, "utf8")).toBe("host canary\n");
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});
