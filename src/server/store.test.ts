// The service's record on disk: what overlapping writes of one Run's files leave, without the engine.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRunStore, type RunRecord } from "./store.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-store-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a Run's record", () => {
  it("takes overlapping writes of its state in the order they were asked, each one landing", async () => {
    const store = createRunStore(scratch);
    const queued: RunRecord = { id: "0123456789abcdef", state: "queued", createdAt: new Date().toISOString(), labels: {} };
    await store.create(queued, { cli: "claude", prompt: "hi" });
    // A Run that turns running and is cancelled at once: both states are written while the other still is.
    const written = await Promise.allSettled([store.update({ ...queued, state: "running" }), store.update({ ...queued, state: "cancelled" })]);
    expect(written.map((w) => w.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(JSON.parse(readFileSync(join(store.directory(queued.id), "state.json"), "utf8"))).toMatchObject({ state: "cancelled" });
  });
});
