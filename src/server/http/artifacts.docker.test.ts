// A Run's artifacts over real HTTP, against the real service and engine: the real claude CLI, given
// input files sent with the Run, writes out/answer.txt (the stand-in's tool_write_bash), and its
// Harvest is listed with the right sha256 once the Run has ended, its container gone. The routes'
// own logic (downloads, refusals, 409 before the end, DELETE) is artifacts.test.ts's.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { containersOfRun } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";
import { tarOf } from "../../../test/support/tar.js";

const service = useTestService("artifacts-http");

const WRITTEN = "written by the stand-in model\n";
const sha256 = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");

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

describe("a Run's artifacts, over HTTP", () => {
  let finished: string;

  it("lists what the real claude CLI wrote, with size and the right sha256, once the Run has ended", async () => {
    const form = new FormData();
    form.append("request", JSON.stringify({ cli: "claude", prompt: "[stand-in:tool_write_bash] Read /work and write out/answer.txt.", maxTurns: 10 }));
    form.append("inputs", new Blob([await tarOf({ "task.md": "Write the answer.\n" })]), "inputs.tar");
    const submitted = await call("/v1/runs", { method: "POST", body: form });
    expect(submitted.status).toBe(202);
    finished = ((await submitted.json()) as { id: string }).id;

    const run = await ended(finished);
    expect(run).toMatchObject({ state: "completed", inputs: { files: 1 }, outcome: { ok: true, harvest: { ok: true, files: 1 } } });
    expect(await json(`/v1/runs/${finished}/artifacts`)).toEqual({
      id: finished,
      harvested: true,
      files: [{ path: "answer.txt", size: Buffer.byteLength(WRITTEN), sha256: sha256(WRITTEN) }],
      bytes: Buffer.byteLength(WRITTEN),
    });
    expect(containersOfRun((run["outcome"] as { runId: string }).runId)).toEqual([]);
  }, 120_000);
});
