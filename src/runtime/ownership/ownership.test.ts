// What a sweep may remove, decided from who owns a Run and until when: this session's own that
// no live Run holds, anything past its deadline, what a gone process on this host left; never a
// live Run of another live process.

import { describe, expect, it } from "vitest";
import { orphanedBecause, processStart, thisProcess, type Ownership, type SweepContext } from "./ownership.js";

const NOW = 1_800_000_000_000;
const me = { host: "host-a", pid: "100", pidStart: "5000" };
const context = (over: Partial<SweepContext> = {}): SweepContext => ({
  session: "aaaaaaaaaaaaaaaa",
  me,
  isLive: () => false,
  now: NOW,
  processAlive: () => true,
  ...over,
});
const other: Ownership = { session: "bbbbbbbbbbbbbbbb", host: "host-a", pid: "200", pidStart: "6000", deadline: String(NOW + 60_000) };

describe("orphanedBecause", () => {
  it("leaves a live Run of this process alone, whatever else is true", () => {
    expect(orphanedBecause("r1", { ...other, deadline: String(NOW - 1) }, context({ isLive: () => true }))).toBeUndefined();
  });

  it("removes this session's own when no Run of it is live", () => {
    expect(orphanedBecause("r1", { ...other, session: "aaaaaaaaaaaaaaaa" }, context())).toBe("it is this session's and no Run of it is live");
  });

  it("leaves another live process's Run alone before its deadline", () => {
    expect(orphanedBecause("r1", other, context())).toBeUndefined();
  });

  it("removes anything past its deadline", () => {
    expect(orphanedBecause("r1", { ...other, deadline: String(NOW - 1) }, context())).toBe("its deadline has passed");
  });

  it("removes what a process on this host left once it is gone, before the deadline", () => {
    const asked: Array<[number, string]> = [];
    const why = orphanedBecause(
      "r1",
      other,
      context({
        processAlive: (pid, start) => {
          asked.push([pid, start]);
          return false;
        },
      }),
    );
    expect(why).toBe("the process that started it is gone");
    expect(asked).toEqual([[200, "6000"]]);
  });

  it("cannot judge a process on another host, so waits for the deadline", () => {
    expect(orphanedBecause("r1", { ...other, host: "host-b" }, context({ processAlive: () => false }))).toBeUndefined();
  });

  it("removes what another runtime of this very process left when no Run of it is live", () => {
    expect(orphanedBecause("r1", { ...other, ...me }, context())).toBe("its runtime in this process has no live Run of it");
  });

  it("removes what carries no ownership record at all (made before there were any)", () => {
    expect(orphanedBecause("r1", {}, context())).toBe("it predates ownership records");
  });
});

describe("processStart", () => {
  it("reads this process's start time, and nothing for a pid that is not running", () => {
    expect(thisProcess().pidStart).toMatch(/^\d+$/);
    expect(processStart(process.pid)).toBe(thisProcess().pidStart);
    expect(processStart(2 ** 22 + 12345)).toBeUndefined();
  });
});
