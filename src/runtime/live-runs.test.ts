// The Runs of this process that a sweep must not take: an id held twice (a warm Run, then its
// directory's removal after its Outcome) stays live until both holders let go.

import { describe, expect, it } from "vitest";
import { liveRuns } from "./live-runs.js";

describe("the live Runs of this process", () => {
  it("keep an id live until each add is undone by a delete, and take an extra delete for nothing", () => {
    liveRuns.add("00000000000000aa");
    liveRuns.add("00000000000000aa");
    liveRuns.delete("00000000000000aa");
    expect(liveRuns.has("00000000000000aa")).toBe(true);
    liveRuns.delete("00000000000000aa");
    expect(liveRuns.has("00000000000000aa")).toBe(false);
    liveRuns.delete("00000000000000aa");
    liveRuns.add("00000000000000aa");
    expect(liveRuns.has("00000000000000aa")).toBe(true);
    liveRuns.delete("00000000000000aa");
    expect(liveRuns.has("00000000000000aa")).toBe(false);
  });
});
