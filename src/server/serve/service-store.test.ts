// The tenancy and the feed behind the store's seam, run against both stores (the file store and the
// in-memory one): the same answers from each. The file store's keeping them across a restart is
// tenancy.test.ts's and feed.test.ts's.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../runs/index.js";
import { createMemoryStore, openFileStore, type ServiceStore } from "./service-store.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-service-store-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const stores: Array<[name: string, open: () => Promise<ServiceStore>]> = [
  ["the file store", () => openFileStore(mkdtempSync(join(scratch, "rt-")))],
  ["the in-memory store", () => createMemoryStore(mkdtempSync(join(scratch, "files-")))],
];

const run: RunRecord = { id: "00000000000000a1", tenant: "acme", state: "queued", createdAt: "2026-12-01T10:00:00.000Z", labels: { team: "red" } };

describe.each(stores)("%s", (_name, open) => {
  it("keeps the Operator's tenant and those made, and changes one's quotas, callback URL and webhook secret", async () => {
    const { tenancy } = await open();
    expect(tenancy.tenants.list().map((t) => t.name)).toEqual(["operator"]);
    const made = await tenancy.tenants.ensure("acme");
    expect(made.webhookSecret).toMatch(/^whsec_/);
    expect(await tenancy.tenants.ensure("acme")).toEqual(made);
    const changed = await tenancy.tenants.change("acme", { quotas: { maxQueued: 3 }, callbackUrl: "https://a.example/hook", rotateWebhookSecret: true });
    expect(changed).toMatchObject({ quotas: { maxQueued: 3 }, callbackUrl: "https://a.example/hook" });
    expect(changed.webhookSecret).not.toBe(made.webhookSecret);
    const reset = await tenancy.tenants.change("acme", { quotas: { maxQueued: null }, callbackUrl: null });
    expect(reset.quotas).toEqual({});
    expect(reset).not.toHaveProperty("callbackUrl");
    expect(tenancy.tenants.get("acme")).toEqual(reset);
  });

  it("verifies a key it made until it is revoked, and keeps no secret in what it lists", async () => {
    const { tenancy } = await open();
    const { key, record } = await tenancy.keys.create({ tenant: "acme", scope: "runs:write" }, "operator-token");
    expect(tenancy.keys.verify(key)).toMatchObject({ prefix: record.prefix, tenant: "acme", scope: "runs:write" });
    expect(tenancy.keys.verify(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`)).toBe("unknown");
    expect(tenancy.keys.verify("nonsense")).toBe("malformed");
    expect(JSON.stringify(tenancy.keys.list())).not.toContain(key.slice(16));
    await tenancy.keys.revoke(record.prefix);
    expect(tenancy.keys.verify(key)).toBe("revoked");
    await tenancy.keys.flush();
  });

  it("reads back the audit entries since a time, oldest first, the newest `limit`", async () => {
    const { tenancy } = await open();
    for (const n of [1, 2, 3]) tenancy.audit.record({ action: "run.create", tenant: "acme", runId: `r${n}`, result: 202, remote: "127.0.0.1" });
    expect((await tenancy.audit.read(0, 2)).map((e) => e.runId)).toEqual(["r2", "r3"]);
    expect(await tenancy.audit.read(Date.now() + 60_000, 10)).toEqual([]);
  });

  it("numbers the feed's entries, reads them after a cursor, and tells a cursor past the kept ones", async () => {
    const { feed } = await open();
    const heard: number[] = [];
    const stop = feed.listen((entry) => heard.push(entry.id));
    for (const type of ["run.queued", "run.started", "run.finished"] as const) feed.append({ type, record: run, at: "2026-12-01T10:00:00.000Z" });
    await feed.flush();
    stop();
    expect(heard).toEqual([1, 2, 3]);
    expect((await feed.after(1, () => true, 10)).map((e) => [e.id, e.type])).toEqual([
      [2, "run.started"],
      [3, "run.finished"],
    ]);
    expect((await feed.after(0, (e) => e.type === "run.finished", 10)).map((e) => e.id)).toEqual([3]);
    expect(await Promise.all([feed.oldestId(), feed.newestId(), feed.standing(3), feed.standing(4)])).toEqual([1, 3, "kept", "ahead"]);
  });
});
