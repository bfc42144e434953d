// Crash safety of the file store, measured: a process of its own writes Runs through it
// (test/support/store-writer.ts) and is SIGKILLed at a random moment, 50 times over one runtime
// directory (now and then pausing long enough for the index's stamp, so kills land after one too);
// after each kill a fresh open must list every Run whose create had resolved (and whose
// removal had not begun), each one whole (its record parses, its state is one of RUN_STATES), exactly the
// Runs its directories hold, and every one that had ended as ended.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "./store.js";
import { RUN_STATES } from "./store.js";
import { createFileRunStore, readFileRunStore } from "./store-files.js";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const ROUNDS = 50;
const scratch = mkdtempSync(join(tmpdir(), "agentcage-store-crash-"));
// Beside the repository's node_modules, which the built writer imports its packages from.
const built = join(REPO, "node_modules", ".cache", `agentcage-store-writer-${process.pid}`);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(built, { recursive: true, force: true });
});

beforeAll(async () => {
  await build({
    configFile: false,
    logLevel: "silent",
    root: REPO,
    build: {
      ssr: join(REPO, "test", "support", "store-writer.ts"),
      outDir: built,
      emptyOutDir: true,
      target: "node20",
      minify: false,
      rollupOptions: { output: { format: "es", entryFileNames: "writer.mjs" } },
    },
  });
}, 120_000);

/** Runs the writer until it has said `killAfter` lines (and a random moment more), kills it, and answers what it said. */
function writeUntilKilled(runtimeDir: string, killAfter: number): Promise<string[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(built, "writer.mjs"), runtimeDir, "40"], { stdio: ["ignore", "pipe", "pipe"] });
    const said: string[] = [];
    let stderr = "";
    let partial = "";
    let killing = false;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      said.push(...lines);
      if (!killing && said.length >= killAfter) {
        killing = true;
        setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 15));
      }
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`the writer ended with ${code ?? signal} before it was killed: ${stderr.slice(-2000)}`));
      else resolvePromise(said);
    });
  });
}

async function everyRun(runtimeDir: string): Promise<RunRecord[]> {
  // It folds no journal and stamps none: the next writer opens the directory right after, and one process writes it at a time.
  const store = createFileRunStore(runtimeDir, { compactAfterLines: Number.MAX_SAFE_INTEGER, stampQuietMs: Number.POSITIVE_INFINITY });
  await store.prepare();
  const records: RunRecord[] = [];
  for (let page = await store.page({ limit: 500 }); ; page = await store.page({ limit: 500, after: records.at(-1) })) {
    records.push(...page.records);
    if (!page.more) return records;
  }
}

describe("the file store, killed at random points of a write loop", () => {
  it(`loses no committed Run and tears none, over ${ROUNDS} kills`, async () => {
    const runtimeDir = mkdtempSync(join(scratch, "rt-"));
    const committed = new Set<string>();
    const ended = new Set<string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      const said = await writeUntilKilled(runtimeDir, 1 + Math.floor(Math.random() * 12));
      for (const line of said) {
        const [what, id = ""] = line.split(" ");
        if (what === "created") committed.add(id);
        if (what === "ended") ended.add(id);
        // Gone or not, as the kill fell: neither is asked of it.
        if (what === "removing") {
          committed.delete(id);
          ended.delete(id);
        }
      }
      const listed = await everyRun(runtimeDir);
      const ids = new Set(listed.map((record) => record.id));
      expect(
        [...committed].filter((id) => !ids.has(id)),
        `round ${round}: committed Runs not listed`,
      ).toEqual([]);
      for (const record of listed) {
        expect(RUN_STATES, `round ${round}: ${record.id}`).toContain(record.state);
        expect(record.labels, `round ${round}: ${record.id}`).toHaveProperty("round");
      }
      expect(
        listed.filter((record) => ended.has(record.id) && record.state !== "completed").map((record) => record.id),
        `round ${round}: ended Runs listed as not ended`,
      ).toEqual([]);
      // The index lists exactly what the Run directories hold (a scan of them, as agentcage runs reads them).
      expect([...ids].sort(), `round ${round}`).toEqual((await readFileRunStore(runtimeDir).all()).map((record) => record.id).sort());
    }
    expect(committed.size).toBeGreaterThan(ROUNDS);
  }, 300_000);
});
