import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerEngineMetrics } from "./metrics-engines.js";

describe("the engines' series", () => {
  it("say of each engine whether it is slow and how many of its pings were late, beside whether it answers", async () => {
    const registry = new Registry();
    registerEngineMetrics(registry, () => [
      { name: "a", answers: true, slow: false, drained: false, latePings: 0, running: 1, slots: 2 },
      { name: "b", answers: false, slow: true, drained: false, latePings: 7, running: 2, slots: 2 },
    ]);
    const text = await registry.metrics();
    expect(text).toContain('agentcage_engine_slow{engine="b"} 1');
    expect(text).toContain('agentcage_engine_late_pings_total{engine="b"} 7');
    expect(text).toContain('agentcage_engine_late_pings_total{engine="a"} 0');
    expect(text).toContain('agentcage_engine_up{engine="b"} 0');
    expect(text).toContain('agentcage_engine_drained{engine="b"} 0');
  });
});
