// `agentcage serve --run-files engine` over real HTTP: the real claude CLI, given input files, writes
// out/answer.txt (the stand-in's tool_write_bash); the Run's files went through the engine (its
// inputs a read-only volume, out/ one of its own), and its artifacts are what the Harvest on disk gives.

import { describe, expect, it } from "vitest";
import { runVolumeName } from "../../runtime/index.js";
import { containersOfRun, docker } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";
import { tarOf } from "../../../test/support/tar.js";

const service = useTestService("run-files-http", { runFiles: "engine" });

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, { ...init, headers: { authorization: `Bearer ${service.token()}`, ...init.headers } });
const json = async (path: string, init: RequestInit = {}) => (await call(path, init)).json() as Promise<Record<string, unknown>>;

async function ended(id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 900; i++) {
    const run = await json(`/v1/runs/${id}`);
    if (run["endedAt"] !== undefined) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Run ${id} did not end within 90 s`);
}

describe("serve --run-files engine", () => {
  it("runs the real claude CLI on inputs that reach it through the engine, and harvests what it wrote", async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    const form = new FormData();
    form.append("request", JSON.stringify({ cli: "claude", prompt: "[stand-in:tool_write_bash] Read /work and write out/answer.txt.", maxTurns: 10 }));
    form.append("inputs", new Blob([await tarOf({ "task.md": "Write the answer.\n" })]), "inputs.tar");
    const submitted = await call("/v1/runs", { method: "POST", body: form });
    expect(submitted.status).toBe(202);
    const id = ((await submitted.json()) as { id: string }).id;
    const run = await ended(id);
    expect(run).toMatchObject({ state: "completed", inputs: { files: 1 }, outcome: { ok: true, harvest: { ok: true, files: 1 } } });
    expect(await (await call(`/v1/runs/${id}/artifacts/answer.txt`)).text()).toBe("written by the stand-in model\n");
    expect(containersOfRun(id)).toEqual([]);
    // The engine made the Run's inputs and out/ volumes (nothing was bound from disk), and they are gone.
    const made = docker(
      "events",
      "--since",
      String(since),
      "--until",
      String(Math.ceil(Date.now() / 1000)),
      "--filter",
      "type=volume",
      "--filter",
      "event=create",
      "--format",
      "{{.Actor.ID}}",
    );
    for (const kind of ["inputs", "out"] as const) {
      expect(made.split("\n")).toContain(runVolumeName(kind, id));
      expect(docker("volume", "ls", "--quiet", "--filter", `name=${runVolumeName(kind, id)}`)).toBe("");
    }
  }, 120_000);
});
