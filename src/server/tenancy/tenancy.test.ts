// The tenancy's pure parts over a scripted agent runner and a temporary directory: keys (made,
// verified, revoked, expired, never stored in clear), the fair share of slots between tenants, the
// quotas a submit is held to, idempotency keys per tenant, and the audit log's folding and rotation.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../../runner/index.js";
import { openAuditLog } from "./audit.js";
import type { Caller } from "../caller.js";
import { openKeyStore } from "./keys.js";
import type { QuotaRefusal } from "../runs/index.js";
import { memoryRuns } from "../runs/index.js";
import { createRunService, type Admitted, type ResolvedQuotas, type ServiceRunRequest } from "../runs/index.js";
import { openTenantStore } from "./tenants.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-tenancy-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const tenant = (name: string): Caller => ({ tenant: name, scope: "runs:write", key: `${name}-key` });
const ask = (prompt: string) => ({ cli: "claude", prompt }) as ServiceRunRequest;

/** A runner whose Runs go on until each is ended by hand (or cancelled); it says which prompts started, in order. */
function heldRunner() {
  const started: string[] = [];
  const enders = new Map<string, () => void>();
  const runner = {
    run: (_request: unknown, prompt: string, options: AgentRunOptions) => {
      started.push(prompt);
      return new Promise<AgentOutcome>((resolve) => {
        const outcome = (reason: "completed" | "cancelled") =>
          ({
            runId: options.runId,
            ok: reason === "completed",
            reason,
            durationMs: 1,
            stdoutBytes: 0,
            stderrBytes: 0,
            stderr: "",
            credential: "api_key",
            result: { ok: true, costUsd: 0.25, usage: { inputTokens: 10, outputTokens: 5 } },
          }) as unknown as AgentOutcome;
        enders.set(prompt, () => resolve(outcome("completed")));
        options.signal?.addEventListener("abort", () => resolve(outcome("cancelled")));
      });
    },
  } as unknown as AgentRunner;
  return { runner, started, end: (prompt: string) => enders.get(prompt)?.() };
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await check()) && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
}

function made(submitted: unknown): Admitted {
  if (typeof submitted !== "object" || submitted === null || !("record" in submitted)) throw new Error(`the submit was answered ${JSON.stringify(submitted)}`);
  return submitted as Admitted;
}

function serviceWith(runner: AgentRunner, slots: number, quotasOf?: (tenant: string) => ResolvedQuotas) {
  return createRunService({
    runner,
    ...memoryRuns(mkdtempSync(join(scratch, "rt-"))),
    slots,
    queueBound: 100,
    ...(quotasOf === undefined ? {} : { quotasOf }),
  });
}

describe("the slots between tenants", () => {
  it("start the Run of a tenant with none running before another tenant's backlog", async () => {
    const { runner, started, end } = heldRunner();
    const service = serviceWith(runner, 1);
    await service.recover();
    for (const n of [1, 2, 3]) made(await service.submit(ask(`a${n}`), undefined, undefined, tenant("a")));
    made(await service.submit(ask("b1"), undefined, undefined, tenant("b")));
    await until(() => started.length === 1);
    end("a1");
    await until(() => started.length === 2);
    // b has nothing running and a has had its turn: b's one Run goes before a's second.
    expect(started).toEqual(["a1", "b1"]);
    end("b1");
    await until(() => started.length === 3);
    expect(started[2]).toBe("a2");
    end("a2");
    await until(() => started.length === 4);
    end("a3");
  });

  it("hold a tenant to its maxRunning while another's Runs take the free slots", async () => {
    const { runner, started, end } = heldRunner();
    const service = serviceWith(runner, 3, (name) => (name === "a" ? { maxRunning: 1, maxQueued: 10 } : { maxRunning: 3, maxQueued: 10 }));
    await service.recover();
    made(await service.submit(ask("a1"), undefined, undefined, tenant("a")));
    made(await service.submit(ask("a2"), undefined, undefined, tenant("a")));
    made(await service.submit(ask("b1"), undefined, undefined, tenant("b")));
    await until(() => started.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(started).toEqual(["a1", "b1"]);
    end("a1");
    await until(() => started.length === 3);
    expect(started[2]).toBe("a2");
    end("a2");
    end("b1");
  });
});

describe("a tenant's quotas", () => {
  it("refuse a Run past max_queued, naming the quota, and count only that tenant's Runs", async () => {
    const { runner, end } = heldRunner();
    const service = serviceWith(runner, 1, () => ({ maxRunning: 1, maxQueued: 2 }));
    await service.recover();
    made(await service.submit(ask("a1"), undefined, undefined, tenant("a")));
    made(await service.submit(ask("a2"), undefined, undefined, tenant("a")));
    const refused = (await service.submit(ask("a3"), undefined, undefined, tenant("a"))) as QuotaRefusal;
    expect(refused).toMatchObject({ quota: "max_queued", tenant: "a", limit: 2, used: 2 });
    made(await service.submit(ask("b1"), undefined, undefined, tenant("b")));
    for (const prompt of ["a1", "a2", "b1"]) end(prompt);
  });

  it("refuse a Run once what the tenant's Runs cost today reaches its daily spend, until midnight UTC", async () => {
    const { runner, started, end } = heldRunner();
    const service = serviceWith(runner, 1, () => ({ maxRunning: 1, maxQueued: 10, dailySpendUsd: 0.5 }));
    await service.recover();
    for (const n of [1, 2]) {
      const { record } = made(await service.submit(ask(`a${n}`), undefined, undefined, tenant("a")));
      await until(() => started.length === n);
      end(`a${n}`);
      await until(async () => (await service.get(record.id))?.state === "completed");
      expect((await service.get(record.id))?.usage).toEqual({ inputTokens: 10, outputTokens: 5, costUsd: 0.25 });
    }
    const refused = (await service.submit(ask("a3"), undefined, undefined, tenant("a"))) as QuotaRefusal;
    expect(refused).toMatchObject({ quota: "daily_spend_usd", limit: 0.5, used: 0.5 });
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    made(await service.submit(ask("b1"), undefined, undefined, tenant("b")));
    end("b1");
  });
});

describe("an Idempotency-Key", () => {
  it("is its tenant's own: the same key from two tenants makes two Runs, and each gets its own back", async () => {
    const { runner, end } = heldRunner();
    const service = serviceWith(runner, 2);
    await service.recover();
    const a = made(await service.submit(ask("same"), "key-1", undefined, tenant("a")));
    const b = made(await service.submit(ask("same"), "key-1", undefined, tenant("b")));
    expect(b.record.id).not.toBe(a.record.id);
    expect(b.created).toBe(true);
    const again = made(await service.submit(ask("same"), "key-1", undefined, tenant("a")));
    expect(again).toMatchObject({ created: false, record: { id: a.record.id } });
    end("same");
    end("same");
  });
});

describe("the key store", () => {
  it("verifies a key it made, keeps only a hash of it, refuses a wrong secret, and refuses a revoked key at once", async () => {
    const dir = mkdtempSync(join(scratch, "keys-"));
    const keys = await openKeyStore(dir);
    const { key, record } = await keys.create({ tenant: "a", scope: "runs:read" }, "operator-token");
    expect(key).toMatch(/^ac_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(keys.verify(key)).toMatchObject({ prefix: record.prefix, tenant: "a", scope: "runs:read" });
    const secret = key.slice(`ac_${record.prefix}_`.length);
    for (const name of readdirSync(dir)) expect(readFileSync(join(dir, name), "latin1")).not.toContain(secret);
    const wrong = `ac_${record.prefix}_${"A".repeat(43)}`;
    expect(keys.verify(wrong)).toBe("unknown");
    expect(keys.verify("not a key")).toBe("malformed");
    await keys.revoke(record.prefix);
    expect(keys.verify(key)).toBe("revoked");
    // What another process (the next start) reads: still revoked, still no secret.
    const reopened = await openKeyStore(dir);
    expect(reopened.verify(key)).toBe("revoked");
    expect(JSON.stringify(reopened.list())).not.toContain(secret);
  });

  it("refuses a key past its expiry", async () => {
    const keys = await openKeyStore(mkdtempSync(join(scratch, "keys-")));
    const { key } = await keys.create({ tenant: "a", scope: "runs:write", expiresAt: new Date(Date.now() - 1000).toISOString() }, "operator-token");
    expect(keys.verify(key)).toBe("expired");
  });

  it("gives each tenant a webhook secret of its own, kept across a restart", async () => {
    const dir = mkdtempSync(join(scratch, "tenants-"));
    const tenants = await openTenantStore(dir);
    const a = await tenants.ensure("a");
    const b = await tenants.ensure("b");
    expect(a.webhookSecret).toMatch(/^whsec_/);
    expect(a.webhookSecret).not.toBe(b.webhookSecret);
    const changed = await tenants.change("a", { quotas: { maxQueued: 3 }, rotateWebhookSecret: true });
    expect(changed.webhookSecret).not.toBe(a.webhookSecret);
    const cleared = await tenants.change("a", { quotas: { maxQueued: null } });
    expect(cleared.quotas).toEqual({});
    expect((await openTenantStore(dir)).get("a")?.webhookSecret).toBe(changed.webhookSecret);
  });
});

describe("the audit log", () => {
  it("folds refusals from one address into one entry with their count, and rotates by size", async () => {
    const dir = mkdtempSync(join(scratch, "audit-"));
    const audit = openAuditLog(dir);
    for (let n = 0; n < 1000; n += 1) audit.refused("203.0.113.9", "unknown", undefined);
    await audit.flush();
    const entries = await audit.read(0, 100);
    expect(entries).toHaveLength(2);
    expect(entries.map((entry) => entry.count ?? 1).reduce((a, b) => a + b)).toBe(1000);
    // Past its size the file rotates: what is kept is bounded whatever is written.
    const big = "x".repeat(64 * 1024);
    for (let n = 0; n < 1200; n += 1) audit.record({ action: "run.create", tenant: "a", key: big, result: 202, remote: "127.0.0.1" });
    await audit.flush();
    const files = readdirSync(dir).filter((name) => name.startsWith("audit.jsonl"));
    expect(files.length).toBeLessThanOrEqual(6);
    const total = files.reduce((sum, name) => sum + readFileSync(join(dir, name)).length, 0);
    expect(total).toBeLessThanOrEqual(6 * 10 * 1024 * 1024);
  });
});
