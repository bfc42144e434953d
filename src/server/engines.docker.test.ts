// The service over several engines (`--engine`): this host's, one daemon of the test's own in a
// network namespace of its own, and one that does not answer. /readyz is ready while one engine can
// take a Run and says why of each when none can; /metrics shows each engine's gauges.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_IMAGE, capturingLogger } from "../../test/support/engine.js";
import { extraEngine, loadTestImage, type ExtraEngine } from "../../test/support/extra-engine.js";
import { serve } from "./index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-serve-engines-"));
const extras: ExtraEngine[] = [];

beforeAll(async () => {
  extras.push(extraEngine(root, "acs"));
  await Promise.all(extras.map((engine) => engine.start()));
  for (const engine of extras) loadTestImage(engine);
}, 120_000);

afterAll(async () => {
  const removed = await Promise.allSettled(extras.map((engine) => engine.remove()));
  rmSync(root, { recursive: true, force: true });
  for (const one of removed) if (one.status === "rejected") throw one.reason;
}, 120_000);

describe("the service over several engines", () => {
  it("is ready while one engine can take a Run, says why of each when none can, and shows each engine's gauges", async () => {
    const c = extras[0] as ExtraEngine;
    const gone = `unix://${join(root, "nothing.sock")},name=gone`;
    const one = await serve({
      runtimeDir: join(root, "service-one"),
      port: 0,
      image: TEST_IMAGE,
      engines: ["local,name=host", `${c.address},name=${c.name},slots=1`, gone],
      logger: capturingLogger().logger,
      environment: {},
    });
    try {
      const ready = await fetch(`${one.url}/readyz`);
      expect(ready.status).toBe(200);
      const token = readFileSync(one.tokenFile as string, "utf8").trim();
      const metrics = await (await fetch(`${one.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
      expect(metrics).toContain('agentcage_engine_up{engine="host"} 1');
      expect(metrics).toContain(`agentcage_engine_up{engine="${c.name}"} 1`);
      expect(metrics).toContain('agentcage_engine_up{engine="gone"} 0');
      expect(metrics).toContain(`agentcage_engine_slots{engine="${c.name}"} 1`);
    } finally {
      await one.stop(5_000);
    }
    // None can: one does not answer, the other does not hold the image.
    const none = await serve({
      runtimeDir: join(root, "service-none"),
      port: 0,
      image: "agentcage-not-loaded:latest",
      engines: [gone, `${c.address},name=${c.name}`],
      logger: capturingLogger().logger,
      environment: {},
    });
    try {
      const answer = await fetch(`${none.url}/readyz`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({ ready: false, reasons: ['engine "gone": it does not answer', `engine "${c.name}": the agent image is not on it`] });
    } finally {
      await none.stop(5_000);
    }
  }, 60_000);
});
