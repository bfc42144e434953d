import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { startUp } from "./serve-startup.js";

describe("serve's start", () => {
  it("says a step that runs long while it runs, by name, and stops saying it once the step is done", async () => {
    const said: Array<{ step: string; waitedMs: number }> = [];
    // The step ends once it was said twice (however late a busy machine fires the reports), or after 10 s.
    let saidTwice: () => void = () => undefined;
    const twice = new Promise<void>((resolve) => (saidTwice = resolve));
    const start = startUp(
      undefined,
      (step, waitedMs) => {
        said.push({ step, waitedMs });
        if (said.length === 2) saidTwice();
      },
      20,
    );
    const answer = await start.during(
      "sweeping the engine",
      Promise.race([twice, sleep(10_000)]).then(() => 42),
    );
    expect(answer).toBe(42);
    expect(said.length).toBeGreaterThanOrEqual(2);
    expect(said.every((one) => one.step === "sweeping the engine")).toBe(true);
    expect(said.at(-1)?.waitedMs).toBeGreaterThan(said[0]?.waitedMs ?? 0);
    const before = said.length;
    await sleep(80);
    expect(said).toHaveLength(before);
  });

  it("says nothing of a step that ends before the first report, and passes on its failure", async () => {
    const said: string[] = [];
    const start = startUp(undefined, (step) => said.push(step), 1000);
    await expect(start.during("reading the Run records", Promise.reject(new Error("unreadable")))).rejects.toThrow("unreadable");
    await expect(start.during("listening", Promise.resolve("here"))).resolves.toBe("here");
    expect(said).toEqual([]);
  });
});
