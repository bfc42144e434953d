// A Run's artifacts through the real app over a file store and scripted Runs (route logic: no
// engine): a Run given input files leaves answer.txt in its Harvest; it is listed with the right
// sha256, downloaded file by file and as a tar, only once the Run has ended; a path that escapes or a
// link is refused; DELETE removes a finished Run and refuses a live one. What a real agent leaves in
// its Harvest is artifacts.docker.test.ts's.

import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { scriptedRunner, useAppInMemory, type CallInit } from "../../../test/support/app.js";
import { tarOf } from "../../../test/support/tar.js";

const WRITTEN = "written by the stand-in model\n";
// The file store, laid out as serve's: <root>/rt/service/runs/<id>/.
const root = mkdtempSync(join(tmpdir(), "agentcage-artifacts-http-"));
const runtimeDir = join(root, "rt");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const service = useAppInMemory("artifacts-http", {
  runtimeDir,
  runner: scriptedRunner((prompt) => (prompt.startsWith("hang") ? { untilCancelled: true } : { harvest: { "answer.txt": WRITTEN } })),
});

const sha256 = (bytes: string | Buffer) => createHash("sha256").update(bytes).digest("hex");
const runDirectory = (id: string) => join(runtimeDir, "service", "runs", id);

const call = (path: string, init: CallInit = {}) => service.call(service.token, path, init);
const json = async (path: string, init: CallInit = {}) => (await call(path, init)).json();
/** The body's bytes as they came (app.inject answers them in `rawPayload`). */
const bytesOf = async (path: string) => {
  const answer = await service.app().inject({ method: "GET", url: path, headers: { authorization: `Bearer ${service.token}` } });
  return { status: answer.statusCode, type: answer.headers["content-type"], bytes: answer.rawPayload };
};

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

describe("a Run's artifacts, over HTTP", () => {
  let finished: string;

  it("lists what the Run left in its Harvest, with size and the right sha256, once it has ended", async () => {
    const form = new FormData();
    form.append("request", JSON.stringify({ cli: "claude", prompt: "Read /work and write out/answer.txt.", maxTurns: 10 }));
    form.append("inputs", new Blob([await tarOf({ "task.md": "Write the answer.\n" })]), "inputs.tar");
    const encoded = new Request("http://localhost/", { method: "POST", body: form });
    const submitted = await call("/v1/runs", {
      method: "POST",
      payload: Buffer.from(await encoded.arrayBuffer()),
      headers: { "content-type": encoded.headers.get("content-type") as string },
    });
    expect(submitted.status).toBe(202);
    finished = submitted.json()["id"] as string;

    const run = await service.ended(service.token, finished);
    expect(run).toMatchObject({ state: "completed", inputs: { files: 1 }, outcome: { ok: true, harvest: { ok: true, files: 1 } } });
    expect(await json(`/v1/runs/${finished}/artifacts`)).toEqual({
      id: finished,
      harvested: true,
      files: [{ path: "answer.txt", size: Buffer.byteLength(WRITTEN), sha256: sha256(WRITTEN) }],
      bytes: Buffer.byteLength(WRITTEN),
    });
  });

  it("streams one file, and the whole Harvest as a tar", async () => {
    const file = await bytesOf(`/v1/runs/${finished}/artifacts/answer.txt`);
    expect(file.status).toBe(200);
    expect(file.type).toBe("application/octet-stream");
    expect(sha256(file.bytes)).toBe(sha256(WRITTEN));

    const archive = await bytesOf(`/v1/runs/${finished}/artifacts.tar`);
    expect(archive.status).toBe(200);
    expect(archive.type).toBe("application/x-tar");
    expect(await untar(archive.bytes)).toEqual({ "answer.txt file": WRITTEN });
  });

  it("refuses a path that escapes the Harvest, and a link planted in it, and says 404 for what is not there", async () => {
    for (const path of ["..%2Fstate.json", "..%2F..%2Frequest.json", "a%2F..%2F..%2Fstate.json", "%2Fetc%2Fpasswd"]) {
      const answer = await call(`/v1/runs/${finished}/artifacts/${path}`);
      expect(answer.status, path).toBe(400);
      expect(answer.json()["message"]).toContain("is not a plain relative path inside the Harvest");
    }
    symlinkSync(join(runDirectory(finished), "request.json"), join(runDirectory(finished), "harvest", "planted"));
    const link = await call(`/v1/runs/${finished}/artifacts/planted`);
    expect(link.status).toBe(400);
    expect(link.json()).toMatchObject({ message: 'artifact "planted" is a link; links are never followed' });
    expect(((await json(`/v1/runs/${finished}/artifacts`))["files"] as Array<{ path: string }>).map((f) => f.path)).toEqual(["answer.txt"]);
    expect(Object.keys(await untar((await bytesOf(`/v1/runs/${finished}/artifacts.tar`)).bytes))).toEqual(["answer.txt file"]);
    expect((await call(`/v1/runs/${finished}/artifacts/nothing.txt`)).status).toBe(404);
  });

  it("answers 409 for the artifacts of a Run that has not ended, and for deleting it; cancelled, it can be deleted", async () => {
    const id = await service.submit(service.token, { prompt: "hang: never answered", timeoutSeconds: 600 });
    for (const path of ["artifacts", "artifacts.tar", "artifacts/answer.txt"]) {
      const answer = await call(`/v1/runs/${id}/${path}`);
      expect(answer.status, path).toBe(409);
      expect(answer.json()).toMatchObject({
        error: "not_ended",
        message: expect.stringMatching(/^the Run is (queued|starting|running); its artifacts are there once it has ended/),
      });
    }
    const refused = await call(`/v1/runs/${id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ error: "not_ended", message: expect.stringContaining("cancel it first") });
    expect(existsSync(runDirectory(id))).toBe(true);

    expect(await json(`/v1/runs/${id}/cancel`, { method: "POST" })).toMatchObject({ state: "cancelled" });
    expect(await json(`/v1/runs/${id}/artifacts`)).toMatchObject({ id, harvested: false, files: [] });
    expect((await call(`/v1/runs/${id}`, { method: "DELETE" })).status).toBe(204);
    expect(existsSync(runDirectory(id))).toBe(false);
  });

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
