// One Run, one id, over the real service and engine: the id POST /v1/runs answers is the run label
// and the name of the Run's container, the name of its Staging Directory while it runs, and the
// runId of its Outcome, served with the Run and in its end event.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docker } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";

const service = useTestService("run-id", { slots: 1 });

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${service.token()}`, "content-type": "application/json", ...init.headers },
  });

/** The names of the containers the engine holds with this run label. */
const containersLabelled = (id: string): string[] =>
  docker("ps", "--all", "--filter", `label=agentcage.run=${id}`, "--format", "{{.Names}}")
    .split("\n")
    .filter((name) => name !== "");

describe("a service Run's id", () => {
  it("is its container's run label and name, its Staging Directory's name, and its Outcome's runId", async () => {
    const submitted = await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "[stand-in:hang] never answered" }) });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };

    for (let i = 0; i < 300 && !containersLabelled(id).includes(`agentcage-${id}`); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(containersLabelled(id)).toContain(`agentcage-${id}`);
    expect(existsSync(join(service.runtimeDir, "staging", id))).toBe(true);

    const cancelled = (await (await call(`/v1/runs/${id}/cancel`, { method: "POST" })).json()) as Record<string, unknown>;
    expect(cancelled).toMatchObject({ id, state: "cancelled", outcome: { reason: "cancelled", runId: id } });
    expect(cancelled).not.toHaveProperty("runId");
    const events = await (await call(`/v1/runs/${id}/events?after=0`)).text();
    expect(events).toContain("event: end");
    expect(events).toContain(`"runId":"${id}"`);
    expect(containersLabelled(id)).toEqual([]);
  }, 90_000);
});
