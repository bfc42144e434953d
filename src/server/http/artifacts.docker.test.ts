// A Run's artifacts over real HTTP, against the real service and engine: the real claude CLI, given
// input files, writes out/answer.txt (the stand-in's tool_write_bash); its Harvest is listed with the
// right sha256, downloaded file by file and as a tar, only once the Run has ended; a path that
// escapes or a link is refused; DELETE removes a finished Run and refuses a live one.

import { createHash } from "node:crypto";
import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import tar from "tar-stream";
import { describe, expect, it } from "vitest";
import { containersOfRun } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";
import { tarOf } from "../../../test/support/tar.js";

const service = useTestService("artifacts-http");
const runtimeDir = service.runtimeDir;

const WRITTEN = "written by the stand-in model\n";
const sha256 = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");
const runDirectory = (id: string) => join(runtimeDir, "service", "runs", id);

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, { ...init, headers: { authorization: `Bearer ${service.token()}`, ...init.headers } });
const json = async (path: string, init: RequestInit = {}) => (await call(path, init)).json() as Promise<Record<string, unknown>>;

async function untar(bytes: Buffer): Promise<Record<string, string>> {
  const extract = tar.extract();
  const entries: Record<string, string> = {};
  extract.end(bytes);
  for await (const entry of extract) {
    let text = "";
    for await (const chunk of entry) text += (chunk as Buffer).toString("utf8");
    entries[`${entry.header.name} ${entry.header.type}`] = text;
  }
  return entries;
}

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

  it("streams one file, and the whole Harvest as a tar", async () => {
    const file = await call(`/v1/runs/${finished}/artifacts/answer.txt`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/octet-stream");
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(sha256(bytes)).toBe(sha256(WRITTEN));

    const archive = await call(`/v1/runs/${finished}/artifacts.tar`);
    expect(archive.status).toBe(200);
    expect(archive.headers.get("content-type")).toBe("application/x-tar");
    expect(await untar(Buffer.from(await archive.arrayBuffer()))).toEqual({ "answer.txt file": WRITTEN });
  });

  it("refuses a path that escapes the Harvest, and a link planted in it, and says 404 for what is not there", async () => {
    for (const path of ["..%2Fstate.json", "..%2F..%2Frequest.json", "a%2F..%2F..%2Fstate.json", "%2Fetc%2Fpasswd"]) {
      const answer = await call(`/v1/runs/${finished}/artifacts/${path}`);
      expect(answer.status, path).toBe(400);
      expect(((await answer.json()) as { message: string }).message).toContain("is not a plain relative path inside the Harvest");
    }
    symlinkSync(join(runDirectory(finished), "request.json"), join(runDirectory(finished), "harvest", "planted"));
    const link = await call(`/v1/runs/${finished}/artifacts/planted`);
    expect(link.status).toBe(400);
    expect(await link.json()).toMatchObject({ message: 'artifact "planted" is a link; links are never followed' });
    expect(((await json(`/v1/runs/${finished}/artifacts`))["files"] as Array<{ path: string }>).map((f) => f.path)).toEqual(["answer.txt"]);
    expect(Object.keys(await untar(Buffer.from(await (await call(`/v1/runs/${finished}/artifacts.tar`)).arrayBuffer())))).toEqual(["answer.txt file"]);
    expect((await call(`/v1/runs/${finished}/artifacts/nothing.txt`)).status).toBe(404);
  });

  it("answers 409 for the artifacts of a Run that has not ended, and for deleting it; cancelled, it can be deleted", async () => {
    const submitted = await call("/v1/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cli: "claude", prompt: "[stand-in:hang] never answered", timeoutSeconds: 600 }),
    });
    const id = ((await submitted.json()) as { id: string }).id;
    for (const path of ["artifacts", "artifacts.tar", "artifacts/answer.txt"]) {
      const answer = await call(`/v1/runs/${id}/${path}`);
      expect(answer.status, path).toBe(409);
      expect(await answer.json()).toMatchObject({
        error: "not_ended",
        message: expect.stringMatching(/^the Run is (queued|starting|running); its artifacts are there once it has ended/),
      });
    }
    const refused = await call(`/v1/runs/${id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "not_ended", message: expect.stringContaining("cancel it first") });
    expect(existsSync(runDirectory(id))).toBe(true);

    expect(await json(`/v1/runs/${id}/cancel`, { method: "POST" })).toMatchObject({ state: "cancelled" });
    expect(await json(`/v1/runs/${id}/artifacts`)).toMatchObject({ id, harvested: false, files: [] });
    expect((await call(`/v1/runs/${id}`, { method: "DELETE" })).status).toBe(204);
    expect(existsSync(runDirectory(id))).toBe(false);
  }, 90_000);

  it("deletes a finished Run: its record, its directory, its artifacts; a second DELETE is 404", async () => {
    expect(existsSync(runDirectory(finished))).toBe(true);
    const removed = await call(`/v1/runs/${finished}`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect(existsSync(runDirectory(finished))).toBe(false);
    expect((await call(`/v1/runs/${finished}`)).status).toBe(404);
    expect((await call(`/v1/runs/${finished}/artifacts`)).status).toBe(404);
    expect((await call(`/v1/runs/${finished}/events`)).status).toBe(404);
    expect((await call(`/v1/runs/${finished}`, { method: "DELETE" })).status).toBe(404);
    expect(((await json("/v1/runs")) as { runs: Array<{ id: string }> }).runs.map((r) => r.id)).not.toContain(finished);
  });

  it("documents the new routes in /openapi.json", async () => {
    const document = (await json("/openapi.json")) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/v1/runs/{id}/artifacts", "/v1/runs/{id}/artifacts.tar", "/v1/runs/{id}/artifacts/{path}"]),
    );
    expect(Object.keys(document.paths["/v1/runs/{id}"] ?? {})).toContain("delete");
    expect(JSON.stringify(document.paths["/v1/runs"])).toContain("multipart/form-data");
  });
});
