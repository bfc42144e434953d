// The service's record on disk: what overlapping writes of one Run's files leave, without the engine.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRunStore, type RunRecord } from "./store.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-store-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a Run's record", () => {
  it("takes overlapping writes of its state in the order they were asked, each one landing", async () => {
    const store = createRunStore(scratch);
    const queued: RunRecord = { id: "0123456789abcdef", tenant: "operator", state: "queued", createdAt: new Date().toISOString(), labels: {} };
    await store.create(queued, { cli: "claude", prompt: "hi" });
    // A Run that turns running and is cancelled at once: both states are written while the other still is.
    const written = await Promise.allSettled([store.update({ ...queued, state: "running" }), store.update({ ...queued, state: "cancelled" })]);
    expect(written.map((w) => w.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(JSON.parse(readFileSync(join(store.directory(queued.id), "state.json"), "utf8"))).toMatchObject({ state: "cancelled" });
  });
});

describe("a record an earlier version wrote", () => {
  it("is read with its one id, the library's run id it kept beside it left out, and its CLI and model from its request", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "earlier-"));
    const store = createRunStore(runtimeDir);
    const id = "00000000000000a1";
    const saved = {
      id,
      state: "completed",
      createdAt: "2025-01-01T00:00:00.000Z",
      endedAt: "2025-01-01T00:00:05.000Z",
      labels: { a: "1" },
      runId: "00000000000000b2",
    };
    mkdirSync(store.directory(id), { recursive: true });
    writeFileSync(join(store.directory(id), "request.json"), JSON.stringify({ cli: "codex", model: "gpt-5.5", prompt: "hi" }));
    writeFileSync(join(store.directory(id), "state.json"), JSON.stringify(saved));
    const { runId: _earlier, ...now } = saved;
    // Recorded before there were tenants: the Operator's; before records kept the CLI and model: as its request named them.
    expect(await store.all()).toEqual([{ ...now, tenant: "operator", cli: "codex", model: "gpt-5.5" }]);
  });
});
