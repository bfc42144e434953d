// The stand-in model's start tells slow from dead (slow is not dead: docs/operations.md). Paused at its start for
// longer than the fixed bound it once had (20 s), as a loaded machine would hold it, it starts once
// unpaused and a Run against it completes; killed at its start, its start fails within seconds,
// naming it, and leaves no container. A tag of the stand-in's image of this file's own marks its
// containers, so no other test's stand-in is paused or killed.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner } from "../index.js";
import { atStart, containersOfImage, pausedFor, unpause } from "../../test/support/at-start.js";
import { docker } from "../../test/support/engine.js";
import { AGENT_IMAGE, STAND_IN_IMAGE, standInRunnerOptions, startStandInModel } from "../../test/support/stand-in-container.js";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";

const TAG = `agentcage-stand-in:start-test-${randomBytes(4).toString("hex")}`;
/** Longer than the 20 s the start was once bounded by. */
const PAUSE_MS = 25_000;

beforeAll(() => void docker("tag", STAND_IN_IMAGE, TAG));
afterAll(async () => {
  for (const id of await containersOfImage(TAG)) docker("rm", "--force", id);
  docker("rmi", TAG);
});

describe("the stand-in model's start", () => {
  it("waits out a pause longer than 20 s at its start, then serves a Run", async () => {
    const watch = atStart({ image: [TAG] }, "pause");
    const began = performance.now();
    const starting = startStandInModel("plain", { image: TAG });
    const listenedAt = starting.then(
      () => performance.now(),
      () => Number.NaN,
    );
    const paused = await watch.caught;
    await pausedFor(PAUSE_MS, starting);
    await unpause(paused);
    const standIn = await starting;
    expect((await listenedAt) - began).toBeGreaterThanOrEqual(PAUSE_MS);
    try {
      const runner = createAgentRunner({ image: AGENT_IMAGE, ...standInRunnerOptions(standIn), apiRetries: 0 });
      const outcome = await runner.run({ cli: "claude" }, "What is the capital of France?");
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, result: { text: PLAIN_ANSWER } });
    } finally {
      await standIn.stop();
    }
    expect(await containersOfImage(TAG)).toEqual([]);
  }, 180_000);

  it("fails within seconds when its container is killed at its start, naming it, and leaves nothing", async () => {
    const watch = atStart({ image: [TAG] }, "kill");
    const starting = startStandInModel("plain", { image: TAG });
    const outcome = starting.then(
      () => "started",
      (error: Error) => error.message,
    );
    await watch.caught;
    const killedAt = performance.now();
    expect(await outcome).toMatch(/^the stand-in model /);
    const tookMs = performance.now() - killedAt;
    expect(tookMs).toBeLessThan(15_000);
    expect(await containersOfImage(TAG)).toEqual([]);
  }, 120_000);
});
