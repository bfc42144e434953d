// A Run under `model` whose egress proxy dies mid-Run ends unavailable within seconds, saying the
// proxy went away, instead of when the CLI gives up (about 50 s) or at its timeout (an hour by
// default). Real engine, real claude CLI, the proxy in its own container, killed from outside.

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, startEgressGateway, type EgressGateway } from "../index.js";
import { AGENT_IMAGE, startStandInModel, type RunningStandIn } from "../../test/support/stand-in-container.js";
import { EGRESS_GONE_AFTER_MISSES, METER_EVENT_INTERVAL_MS } from "./limits.js";

const sh = promisify(execFile);
const OWNER = `agentcage-egress-gone-${randomBytes(3).toString("hex")}`;
const docker = async (...args: string[]): Promise<string> => (await sh("docker", args)).stdout.trim();

let upstreamNetwork = "";
let standIn: RunningStandIn;
let gateway: EgressGateway;
let controlDir = "";

beforeAll(async () => {
  upstreamNetwork = `agentcage-e2e-gone-${randomBytes(3).toString("hex")}`;
  await docker("network", "create", "--label", `${OWNER}=upstream`, upstreamNetwork);
  standIn = await startStandInModel("plain", { networks: [upstreamNetwork] });
  controlDir = await mkdtemp(join(tmpdir(), "agentcage-egress-gone-"));
  gateway = await startEgressGateway({ runtimeDir: controlDir, networks: [upstreamNetwork], upstreams: { claude: standIn.networkUrl as string } });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await standIn?.stop();
  if (upstreamNetwork !== "") await docker("network", "rm", upstreamNetwork).catch(() => undefined);
  if (controlDir !== "") await rm(controlDir, { recursive: true, force: true });
});

describe("a Run whose egress proxy dies", () => {
  it("ends unavailable within seconds, saying the proxy went away, and leaves nothing behind", async () => {
    const runner = createAgentRunner({
      image: AGENT_IMAGE,
      apiRetries: 0,
      owner: OWNER,
      environment: { ANTHROPIC_API_KEY: `sk-ant-api03-gone-${randomBytes(16).toString("hex")}` },
      networkPolicy: "model",
      egress: gateway,
    });
    const running = runner.run({ cli: "claude", timeoutSeconds: 600 }, "Wait for the model. [stand-in:hang]");
    const deadline = Date.now() + 60_000;
    while ((await docker("ps", "-q", "--filter", `label=agentcage.owner=${OWNER}`, "--filter", "status=running")) === "") {
      if (Date.now() > deadline) throw new Error("no agent container came up");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await docker("kill", gateway.container);
    const killedAt = Date.now();
    const outcome = await running;
    const tookMs = Date.now() - killedAt;
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: false, reason: "unavailable", error: expect.stringContaining("the egress proxy went away") });
    // Noticed after EGRESS_GONE_AFTER_MISSES readings, then the container's stop: three times that on a busy machine.
    expect(tookMs).toBeLessThan(3 * ((EGRESS_GONE_AFTER_MISSES + 1) * METER_EVENT_INTERVAL_MS + 5_000));
    expect(await docker("ps", "-aq", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
    expect(await docker("network", "ls", "-q", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
  }, 180_000);
});
