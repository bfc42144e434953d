// A process of its own that writes Runs through the file store as the service does (create, its
// events, its states, its Outcome), one after another until it is killed, for the crash test
// (src/server/runs/store-crash.test.ts). Arguments: the runtime directory, and after how many index
// lines the journal is folded into a snapshot. Every fourth Run it pauses long enough for the index's
// stamp (STAMP_QUIET_MS). Prints `created <id>` once a create resolved and
// `ended <id>` once its terminal update resolved, and `removing <id>` before one is removed, each on a
// line of its own.

import { randomBytes } from "node:crypto";
import { createFileRunStore } from "../../src/server/runs/store-files.js";
import type { RunRecord } from "../../src/server/runs/store.js";

const [runtimeDir = "", compactAfterLines = "50"] = process.argv.slice(2);
/** Short, so that a kill lands after a stamp now and then; still longer than the file system's time step. */
const STAMP_QUIET_MS = 30;
const store = createFileRunStore(runtimeDir, { compactAfterLines: Number(compactAfterLines), stampQuietMs: STAMP_QUIET_MS });
await store.prepare();
const say = (line: string) => new Promise<void>((resolve) => process.stdout.write(`${line}\n`, () => resolve()));
for (let n = 0; ; n += 1) {
  const id = randomBytes(8).toString("hex");
  const queued: RunRecord = {
    id,
    tenant: n % 2 === 0 ? "acme" : "other",
    state: "queued",
    createdAt: new Date().toISOString(),
    cli: "claude",
    labels: { round: String(n % 3) },
    idempotencyKey: `k-${id}`,
  };
  await store.create(queued, { cli: "claude", prompt: `prompt ${n}` });
  await say(`created ${id}`);
  await store.appendEvents(id, [{ id: 1, type: "state", data: { state: "queued" } }]);
  const running = { ...queued, state: "running" as const, startedAt: new Date().toISOString() };
  await store.update(running);
  await store.appendEvents(id, [{ id: 2, type: "state", data: { state: "running" } }]);
  await store.saveOutcome(id, { runId: id, ok: true, reason: "completed", result: { sessionId: `s-${id}` } });
  await store.update({ ...running, state: "completed", reason: "completed", endedAt: new Date().toISOString(), usage: { costUsd: 0.01 } });
  await say(`ended ${id}`);
  await store.appendEvents(id, [{ id: 3, type: "end", data: { ok: true } }]);
  if (n % 4 === 3) await new Promise((resolve) => setTimeout(resolve, 3 * STAMP_QUIET_MS));
  // Now and then one goes, as a DELETE or the retention takes it.
  if (n % 7 === 6) {
    await say(`removing ${id}`);
    await store.remove(id);
  }
}
