// The egress proxy's start, with the stand-in model behind it in its container, tells slow from dead
// (slow is not dead: docs/operations.md), under either control path. Paused at its start for longer than the fixed
// bound it once had (20 s), it starts once unpaused and a `model` Run through it completes; killed
// at its start, its start fails within seconds, naming it, and leaves no container and no control
// directory. A tag of the proxy's image of this file's own marks its containers, so no other
// test's proxy is paused or killed.

import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, startEgressGateway } from "../index.js";
import { DEFAULT_EGRESS_IMAGE } from "../subpaths/egress.js";
import { atStart, containersOfImage, pausedFor, unpause } from "../../test/support/at-start.js";
import { docker } from "../../test/support/engine.js";
import { AGENT_IMAGE, STAND_IN_CODEX_MODEL, STAND_IN_ENVIRONMENT } from "../../test/support/stand-in-container.js";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";

const TAG = `agentcage-orchestrator:start-test-${randomBytes(4).toString("hex")}`;
/** Longer than the 20 s the start was once bounded by. */
const PAUSE_MS = 25_000;

let scratch = "";

beforeAll(async () => {
  docker("tag", DEFAULT_EGRESS_IMAGE, TAG);
  scratch = await mkdtemp(join(tmpdir(), "agentcage-egress-start-"));
});
afterAll(async () => {
  for (const id of await containersOfImage(TAG)) docker("rm", "--force", id);
  docker("rmi", TAG);
  await rm(scratch, { recursive: true, force: true });
});

describe.each(["disk", "engine"] as const)("the egress proxy's start with the stand-in behind it, control %s", (control) => {
  it("waits out a pause longer than 20 s at its start, then serves a model Run", async () => {
    const runtimeDir = await mkdtemp(join(scratch, `paused-${control}-`));
    const watch = atStart({ image: [TAG] }, "pause");
    const began = performance.now();
    // Should the test fail before the start ends, its cancel removes what the start made.
    const cancel = new AbortController();
    const starting = startEgressGateway({ runtimeDir, control, image: TAG, standIn: true, codexModel: STAND_IN_CODEX_MODEL, signal: cancel.signal });
    const listenedAt = starting.then(
      () => performance.now(),
      () => Number.NaN,
    );
    let gateway: Awaited<typeof starting> | undefined;
    try {
      const paused = await watch.caught;
      await pausedFor(PAUSE_MS, starting);
      await unpause(paused);
      gateway = await starting;
    } finally {
      cancel.abort(new Error("the test ended"));
    }
    expect((await listenedAt) - began).toBeGreaterThanOrEqual(PAUSE_MS);
    try {
      const runner = createAgentRunner({
        image: AGENT_IMAGE,
        staging: { runtimeDir },
        networkPolicy: "model",
        egress: gateway,
        environment: STAND_IN_ENVIRONMENT,
        apiRetries: 0,
      });
      const outcome = await runner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?");
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, result: { text: PLAIN_ANSWER } });
    } finally {
      await gateway.close();
    }
    expect(await containersOfImage(TAG)).toEqual([]);
  }, 240_000);

  it("fails within seconds when its container is killed at its start, naming it, and leaves nothing", async () => {
    const runtimeDir = await mkdtemp(join(scratch, `killed-${control}-`));
    const watch = atStart({ image: [TAG] }, "kill");
    const starting = startEgressGateway({ runtimeDir, control, image: TAG, standIn: true });
    const outcome = starting.then(
      () => "started",
      (error: Error) => error.message,
    );
    await watch.caught;
    const killedAt = performance.now();
    expect(await outcome).toMatch(/^the egress proxy, with the stand-in model behind it, exited/);
    expect(performance.now() - killedAt).toBeLessThan(15_000);
    expect(await containersOfImage(TAG)).toEqual([]);
    expect(await readdir(runtimeDir)).toEqual([]);
  }, 120_000);
});
