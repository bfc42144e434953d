// A load test on loopback: 100 Runs submitted at once with 4 slots and a queue bound of 16. The
// service accepts what its slots and queue hold and answers 429 for the rest; every accepted Run
// reaches exactly one terminal state; no container and no Run directory of the library is left.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docker } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";

const SUBMITTED = 100;
const SLOTS = 4;
/**
 * Runs accepted and not ended; each accepted Run is a real claude Run, so this is what the test's
 * time is made of. Four times the slots: Runs wait behind running ones, and 84 of the 100 are refused;
 * no claim here hangs on the bound's size (it was 100, then 40, for the same claims).
 */
const QUEUE_BOUND = 16;
const service = useTestService("load", { slots: SLOTS, queueBound: QUEUE_BOUND });
const runtimeDir = service.runtimeDir;

describe(`${SUBMITTED} Runs submitted at once, ${SLOTS} slots, a queue bound of ${QUEUE_BOUND}`, () => {
  it(`accepts ${QUEUE_BOUND}, refuses the rest with 429, and ends every accepted Run once`, async () => {
    const headers = { authorization: `Bearer ${service.token()}`, "content-type": "application/json" };
    const rssBefore = process.memoryUsage().rss;
    const answers = await Promise.all(
      Array.from({ length: SUBMITTED }, () =>
        fetch(`${service.running().url}/v1/runs`, {
          method: "POST",
          headers,
          body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?" }),
        }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted.length + refused.length).toBe(SUBMITTED);
    // The bound holds every Run accepted and not ended: 4 running and 12 waiting. None ends before
    // the last submit is answered (a Run of the real CLI takes longer than 100 loopback requests).
    expect(accepted.length).toBe(QUEUE_BOUND);
    const ids = await Promise.all(accepted.map(async (a) => ((await a.json()) as { id: string }).id));

    for (const id of ids) {
      // The event stream closes after the one end event, replayed in full for a Run that already ended.
      const text = await (await fetch(`${service.running().url}/v1/runs/${id}/events`, { headers })).text();
      expect(text.match(/^event: end$/gm) ?? []).toHaveLength(1);
      expect(text).toContain('"reason":"completed"');
    }
    const rssAfter = process.memoryUsage().rss;
    console.log(
      `load: ${accepted.length} accepted, ${refused.length} refused; rss ${(rssBefore / 2 ** 20).toFixed(0)} -> ${(rssAfter / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(rssAfter - rssBefore).toBeLessThan(512 * 2 ** 20);
    // This process's agents only (the stand-in runs on; other processes may be running their own).
    expect(
      docker("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage", "--filter", `label=agentcage.pid=${process.pid}`)
        .split("\n")
        .filter((l) => l !== ""),
    ).toEqual([]);
    // The library's Run directories live in the service's Staging Directory, beside its records.
    const staging = join(runtimeDir, "staging");
    expect((existsSync(staging) ? readdirSync(staging) : []).filter((name) => /^[0-9a-f]{16}$/.test(name))).toEqual([]);
  }, 300_000);
});
