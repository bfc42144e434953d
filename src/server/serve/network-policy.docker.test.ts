// The service under `--network-policy model` with the proxy it starts itself (the stand-in model
// behind it): a Run's events carry what the proxy metered, its record says the policy and the
// meter, its agent held a token; when the service stops, its proxy goes too.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturingLogger, docker } from "../../../test/support/engine.js";
import { serve, type RunningService } from "../index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-serve-policy-"));
let running: RunningService | undefined;
let token = "";
const proxies = () =>
  docker("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", `label=agentcage.pid=${process.pid}`)
    .split("\n")
    .filter((id) => id !== "");

beforeAll(async () => {
  running = await serve({
    runtimeDir: join(root, "rt"),
    port: 0,
    standIn: true,
    networkPolicy: "model",
    slots: 1,
    logger: capturingLogger().logger,
    environment: {},
  });
  token = readFileSync(running.tokenFile as string, "utf8").trim();
}, 60_000);

afterAll(async () => {
  await running?.stop(5_000);
  rmSync(root, { recursive: true, force: true });
}, 60_000);

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${running?.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });

describe("agentcage serve --network-policy model", () => {
  it("runs each agent behind the proxy it started, with the proxy's meter in the events and the record", async () => {
    expect(proxies()).toHaveLength(1);
    const submitted = (await (
      await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?" }) })
    ).json()) as { id: string };
    const events = await (await call(`/v1/runs/${submitted.id}/events`)).text();
    expect(events).toContain('"type":"metered"');
    const final = (await (await call(`/v1/runs/${submitted.id}`)).json()) as {
      state: string;
      outcome: { network?: { policy: string; meter?: { turns: number } }; result?: { text?: string } };
    };
    expect(final).toMatchObject({
      state: "completed",
      outcome: { network: { policy: "model", meter: { turns: 1 } }, result: { text: "The capital of France is Paris." } },
    });
    expect(events).not.toMatch(/agentcage-run-[A-Za-z0-9_-]{20,}/);
  }, 90_000);

  it("stops its proxy when it stops", async () => {
    await running?.stop(5_000);
    running = undefined;
    expect(proxies()).toEqual([]);
  }, 60_000);
});
