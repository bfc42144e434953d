// Attacks on the service's tenancy through its A2A door, over real HTTP against a real service and
// engine with the stand-in model: a tenant's tasks/get, tasks/cancel and tasks/resubscribe of another
// tenant's Run answer as for an unknown task, a message makes a Run of the caller's own tenant, and
// a runs:read key makes no Run and cancels none.

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTenantService, type Answer } from "../../test/support/tenants.js";

const svc = useTenantService("tenants-a2a", { slots: 2, queueBound: 20 });
const UNKNOWN = "0123456789abcdef";
const HANG = { prompt: "[stand-in:hang] never answered", timeoutSeconds: 30 };
let aWrite = "";
let aRead = "";
let bWrite = "";

/** One A2A 0.3 JSON-RPC call as `key`. */
const rpc = (key: string, method: string, params: Record<string, unknown>): Promise<Answer> =>
  svc.call(key, "/a2a/jsonrpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }) });
const message = (text: string, metadata: Record<string, unknown> = {}) => ({
  message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text }], metadata },
  configuration: { blocking: false },
});

beforeAll(async () => {
  [aWrite, aRead, bWrite] = (await Promise.all([svc.makeKey("a", "runs:write"), svc.makeKey("a", "runs:read"), svc.makeKey("b", "runs:write")])).map(
    (k) => k.key,
  ) as [string, string, string];
}, 60_000);

describe("A2A, one tenant against another's Runs", () => {
  it("answers tasks/get, tasks/cancel and tasks/resubscribe of another tenant's Run as of an unknown task, and leaves the Run running", async () => {
    const bRun = await svc.submit(bWrite, HANG);
    await svc.reaches(bWrite, bRun, ["running"]);
    for (const key of [aWrite, aRead]) {
      for (const method of ["tasks/get", "tasks/cancel", "tasks/resubscribe"]) {
        const theirs = await rpc(key, method, { id: bRun });
        const unknown = await rpc(key, method, { id: UNKNOWN });
        expect(theirs.status, method).toBe(unknown.status);
        expect(theirs.text.replaceAll(bRun, "<id>"), method).toBe(unknown.text.replaceAll(UNKNOWN, "<id>"));
        expect(theirs.text, method).not.toContain('"result"');
      }
    }
    expect((await svc.call(bWrite, `/v1/runs/${bRun}`)).json()["state"]).toBe("running");
    expect((await rpc(bWrite, "tasks/get", { id: bRun })).json()["result"]).toMatchObject({ id: bRun });
    expect((await svc.call(bWrite, `/v1/runs/${bRun}/cancel`, { method: "POST" })).status).toBe(200);
  }, 60_000);

  it("makes a message's Run the caller's tenant's, and refuses a runs:read key's message and cancel, making no Run", async () => {
    const before = (await svc.call(svc.operator(), "/v1/runs")).json()["runs"] as unknown[];
    for (const [method, params] of [
      ["message/send", message("[stand-in:hang] never answered", { timeoutSeconds: 30 })],
      ["message/stream", message("[stand-in:hang] never answered", { timeoutSeconds: 30 })],
    ] as const) {
      const refused = await rpc(aRead, method, params);
      expect(refused.status, method).toBe(403);
      expect(refused.json(), method).toMatchObject({ error: "forbidden", message: expect.stringContaining("runs:write") });
    }
    expect((await svc.call(svc.operator(), "/v1/runs")).json()["runs"]).toHaveLength(before.length);

    const sent = await rpc(aWrite, "message/send", message("[stand-in:hang] never answered", { timeoutSeconds: 30 }));
    const taskId = (sent.json()["result"] as { id: string }).id;
    expect((await svc.call(aWrite, `/v1/runs/${taskId}`)).status).toBe(200);
    expect((await svc.call(bWrite, `/v1/runs/${taskId}`)).status).toBe(404);
    expect((await svc.call(aWrite, "/v1/runs")).json()["runs"]).toEqual([expect.objectContaining({ id: taskId })]);

    const readCancel = await rpc(aRead, "tasks/cancel", { id: taskId });
    expect(readCancel.status).toBe(403);
    expect(["queued", "starting", "running"]).toContain((await svc.call(aWrite, `/v1/runs/${taskId}`)).json()["state"]);
    expect((await rpc(aWrite, "tasks/cancel", { id: taskId })).json()["result"]).toMatchObject({ id: taskId });
    expect(await svc.ended(aWrite, taskId, 30_000)).toMatchObject({ state: "cancelled" });
  }, 60_000);
});
