// A container's exit as the real engine's event tells it: the exit code, whether it ran out of memory
// first, heard for a container that exited just before the listening began, and nothing once the
// listening is stopped.

import { afterEach, describe, expect, it } from "vitest";
import { createDockerEngine } from "./docker.js";
import { docker, TEST_IMAGE } from "../../test/support/engine.js";

const engine = createDockerEngine();
let ids: string[] = [];
afterEach(() => {
  for (const id of ids) docker("rm", "--force", id);
  ids = [];
});

function created(script: string, ...flags: string[]): string {
  const id = docker("create", "--init", "--cap-drop", "ALL", "--user", "10002:10002", "--network", "none", ...flags, TEST_IMAGE, "sh", "-c", script);
  ids.push(id);
  return id;
}

describe("the Docker engine's exitEvent", () => {
  it("tells the exit code of a container that exits while it listens", async () => {
    const id = created("sleep 0.3; exit 3");
    const told = engine.exitEvent?.(id, new AbortController().signal);
    docker("start", id);
    expect(await told).toEqual({ exitCode: 3, oomKilled: false });
    expect(await engine.wait(id)).toBe(3);
  });

  it("tells the exit of a container that exited just before it listened", async () => {
    const id = created("exit 0");
    docker("start", id);
    docker("wait", id);
    expect(await engine.exitEvent?.(id, new AbortController().signal)).toEqual({ exitCode: 0, oomKilled: false });
  });

  it("says a container ran out of memory when one of its processes was killed for it, whatever its exit code", async () => {
    const id = created("x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived", "--memory", "32m", "--memory-swap", "32m");
    const told = engine.exitEvent?.(id, new AbortController().signal);
    docker("start", id);
    const exit = await told;
    expect(exit?.oomKilled).toBe(true);
    expect(exit?.exitCode).toBe((await engine.inspect(id))?.exitCode);
  });

  it("tells nothing once its signal aborts", async () => {
    const id = created("sleep 60");
    docker("start", id);
    const listening = new AbortController();
    const told = engine.exitEvent?.(id, listening.signal);
    setTimeout(() => listening.abort(), 200);
    expect(await told).toBeUndefined();
  });
});
