// Questions about the engine through the library: answers passed on, failures as values with the
// socket's code and what to do, misuse refused naming the parameter.

import { describe, expect, it, vi } from "vitest";
import { createFakeEngine, createUnreachableEngine, FAKE_ENGINE_FACTS, FAKE_IMAGE_FACTS } from "../../test/support/fake-engine.js";
import { atIdleLoad } from "../../test/support/idle-load.js";
import { readLoadWith } from "../liveness/index.js";
import { RunRequestError } from "../index.js";
import { containerMounts, inspectEngine, inspectImage, type Engine } from "../subpaths/runtime.js";

// The bounds as written, whatever this machine's load: these tests are of what happens at them.
atIdleLoad();

describe("inspectEngine", () => {
  it("passes on what the engine says of itself", async () => {
    expect(await inspectEngine({ engine: createFakeEngine() })).toEqual({ ok: true, facts: FAKE_ENGINE_FACTS });
  });

  it("says the engine is unreachable, with the socket's code and what to do", async () => {
    expect(await inspectEngine({ engine: createUnreachableEngine() })).toEqual({
      ok: false,
      code: "ECONNREFUSED",
      error: "the container engine is unreachable (ECONNREFUSED during version); start dockerd or point DOCKER_HOST at a running engine",
    });
  });

  it("gives up on an engine that never answers", async () => {
    const engine = createFakeEngine({}, { fail: { facts: "never" } });
    vi.useFakeTimers();
    try {
      const report = inspectEngine({ engine });
      await vi.advanceTimersByTimeAsync(10_000);
      expect(await report).toMatchObject({
        ok: false,
        error: "the engine did not answer its version within 10000 ms; check that it runs and answers (docker info), or point DOCKER_HOST at one that does",
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it("waits longer for an engine on a busy machine, and says the bound as the load made it", async () => {
    const engine = createFakeEngine({}, { fail: { facts: "never" } });
    readLoadWith(() => ({ runnable: 0, average: 6, cores: 2 }));
    vi.useFakeTimers();
    try {
      const report = inspectEngine({ engine });
      await vi.advanceTimersByTimeAsync(10_000);
      let settled = false;
      void report.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(20_000);
      expect(await report).toMatchObject({
        ok: false,
        error:
          "the engine did not answer its version within 10000 ms (30000 ms at this machine's load of 3.0 per core); check that it runs and answers (docker info), or point DOCKER_HOST at one that does",
      });
    } finally {
      vi.useRealTimers();
      // Back to idle for the rest of the file (atIdleLoad gives the real reading back after it).
      readLoadWith(() => ({ runnable: 0, average: 0, cores: 1 }));
    }
  });

  it.each<[string, unknown, RegExp]>([
    ["a non-object", "unix:///var/run/docker.sock", /^inspectEngine's options "unix:\/\/\/var\/run\/docker.sock" is not an object/],
    ["an unknown option", { socketPath: "/x" }, /^inspectEngine option "socketPath" is not one it knows; use docker or engine$/],
    ["an engine that is not one", { engine: { ping: () => undefined } }, /^inspectEngine's engine .* is not an Engine/],
  ])("refuses %s, naming it", async (_, connection, message) => {
    await expect(inspectEngine(connection as { engine: Engine })).rejects.toThrow(RunRequestError);
    await expect(inspectEngine(connection as { engine: Engine })).rejects.toThrow(message);
  });
});

describe("inspectImage", () => {
  it("gives the image's facts, or none when the engine does not hold it", async () => {
    const engine = createFakeEngine({}, { images: { "agent:1": { labels: { a: "b" } } } });
    expect(await inspectImage("agent:1", { engine })).toEqual({ ok: true, facts: { ...FAKE_IMAGE_FACTS, labels: { a: "b" } } });
    expect(await inspectImage("agent:2", { engine })).toEqual({ ok: true, facts: undefined });
  });

  it("refuses an empty image reference, quoting it", async () => {
    await expect(inspectImage("  ", { engine: createFakeEngine() })).rejects.toThrow(/^image " {2}" is not an image reference/);
  });
});

describe("containerMounts", () => {
  it("gives another container's mounts, or none when the engine knows no such container", async () => {
    const mounts = [{ source: "/srv/agentcage", destination: "/var/lib/agentcage", readOnly: false }];
    const engine = createFakeEngine({}, { mounts: { "0123abcd": mounts } });
    expect(await containerMounts("0123abcd", { engine })).toEqual({ ok: true, mounts });
    expect(await containerMounts("nope", { engine })).toEqual({ ok: true, mounts: undefined });
  });
});
