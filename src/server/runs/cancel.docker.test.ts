// Cancel through the service when the agent will not stop: the test image's claude, asked for the
// model "ignores-sigterm", ignores SIGTERM and never ends. The cancel still answers within the
// service's stop grace and a little more, the Run ends cancelled, and its container is gone.

import { describe, expect, it } from "vitest";
import { containersOfRun, docker, TEST_IMAGE } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";
import { SERVICE_STOP_GRACE_SECONDS } from "../limits.js";

const service = useTestService("cancel", { slots: 1, queueBound: 2, image: TEST_IMAGE });

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${service.token()}`, "content-type": "application/json", ...init.headers },
  });

async function stateOf(id: string): Promise<{ state: string; outcome?: { runId: string; reason: string; durationMs: number } }> {
  return (await (await call(`/v1/runs/${id}`)).json()) as { state: string; outcome?: { runId: string; reason: string; durationMs: number } };
}

describe("cancel of a Run whose agent ignores SIGTERM", () => {
  it("answers within the stop grace and a few seconds, ends the Run cancelled, and leaves no container", async () => {
    const submitted = (await (
      await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", model: "ignores-sigterm", prompt: "never stop", timeoutSeconds: 600 }) })
    ).json()) as { id: string };
    for (let i = 0; i < 300 && (await stateOf(submitted.id)).state !== "running"; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await stateOf(submitted.id)).state).toBe("running");
    // The agent really is the stubborn one: its container runs, and SIGTERM alone does not end it.
    const [container] = docker("ps", "--quiet", "--filter", "label=agentcage.run", "--filter", `label=agentcage.pid=${process.pid}`)
      .split("\n")
      .filter((id) => id !== "");
    expect(container).toBeDefined();
    docker("kill", "--signal", "TERM", container as string);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(docker("inspect", "--format", "{{.State.Running}}", container as string)).toBe("true");

    const started = performance.now();
    const answer = await call(`/v1/runs/${submitted.id}/cancel`, { method: "POST" });
    const tookMs = performance.now() - started;
    const cancelled = (await answer.json()) as { state: string; outcome: { runId: string; reason: string } };
    console.log(`cancel of an agent that ignores SIGTERM answered in ${tookMs.toFixed(0)} ms (stop grace ${SERVICE_STOP_GRACE_SECONDS} s)`);
    expect(answer.status).toBe(200);
    expect(tookMs).toBeGreaterThan(SERVICE_STOP_GRACE_SECONDS * 1000 - 500);
    expect(tookMs).toBeLessThan((SERVICE_STOP_GRACE_SECONDS + 7) * 1000);
    expect(cancelled).toMatchObject({ state: "cancelled", outcome: { reason: "cancelled" } });
    expect(containersOfRun(cancelled.outcome.runId)).toEqual([]);
  }, 90_000);
});
