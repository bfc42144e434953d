// A writable workspace over HTTP, against the real service and engine with the real claude CLI and
// the stand-in: `writable: true` with an inputs archive has the agent edit a copy of its inputs, the
// artifacts list the change set and serve changes.patch (empty, or an edited input's diff), and `agentcage run --remote --writable`
// prints the patch or fetches the change set into --out. Without inputs it is refused (400).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnv, runCommand } from "../../../test/support/command.js";
import { useTestService } from "../../../test/support/service.js";
import { WRITTEN_FILE_TEXT } from "../../../test/stand-in/index.js";
import { tarOf } from "../../../test/support/tar.js";

/** `agentcage run`'s exit status for a completed Run (EXIT.completed; src/cli is above this folder). */
const COMPLETED = 0;
const service = useTestService("writable-http");
const root = mkdtempSync(join(tmpdir(), "agentcage-writable-http-"));
const inputs = join(root, "in");

beforeAll(() => {
  mkdirSync(inputs);
  writeFileSync(join(inputs, "README.md"), "# a project\n");
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${service.running().url}${path}`, { ...init, headers: { authorization: `Bearer ${service.token()}`, ...init.headers } });
const json = async (path: string) => (await call(path)).json() as Promise<Record<string, unknown>>;

async function ended(id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 900; i++) {
    const run = await json(`/v1/runs/${id}`);
    if (run["endedAt"] !== undefined) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Run ${id} did not end within 90 s`);
}

describe("a writable workspace, over HTTP", () => {
  it("lists the change set of a writable Run and serves its changes.patch", async () => {
    const form = new FormData();
    form.append("request", JSON.stringify({ cli: "claude", prompt: "[stand-in:tool_write_bash] write the answer", writable: true }));
    form.append("inputs", new Blob([await tarOf({ "README.md": "# a project\n" })]), "inputs.tar");
    const submitted = await call("/v1/runs", { method: "POST", body: form });
    expect(submitted.status).toBe(202);
    const id = ((await submitted.json()) as { id: string }).id;
    expect(await ended(id)).toMatchObject({
      state: "completed",
      outcome: { ok: true, harvest: { ok: true, changes: { added: [], changed: [], deleted: [], outFiles: 1 } } },
    });

    const listed = await json(`/v1/runs/${id}/artifacts`);
    expect(listed).toMatchObject({ harvested: true, patch: true, changes: { added: [], changed: [], deleted: [], undiffed: [], outFiles: 1 } });
    expect((listed["files"] as Array<{ path: string }>).map((file) => file.path).sort()).toEqual(["changes.json", "changes.patch", "out/answer.txt"]);
    const patch = await call(`/v1/runs/${id}/artifacts/changes.patch`);
    expect(patch.status).toBe(200);
    expect(await patch.text()).toBe("");
    expect(await (await call(`/v1/runs/${id}/artifacts/out/answer.txt`)).text()).toBe(WRITTEN_FILE_TEXT);
  }, 120_000);

  it("serves the patch of an input the agent edited, and the edited file in the change set", async () => {
    const form = new FormData();
    form.append(
      "request",
      JSON.stringify({ cli: "claude", prompt: "[stand-in:tool_write_bash] [stand-in-write:README.md] rewrite the readme", writable: true }),
    );
    form.append("inputs", new Blob([await tarOf({ "README.md": "# a project\n", "src/keep.txt": "kept\n" })]), "inputs.tar");
    const submitted = await call("/v1/runs", { method: "POST", body: form });
    expect(submitted.status).toBe(202);
    const id = ((await submitted.json()) as { id: string }).id;
    expect(await ended(id)).toMatchObject({
      state: "completed",
      outcome: { ok: true, harvest: { ok: true, changes: { added: [], changed: ["README.md"], deleted: [], outFiles: 0 } } },
    });

    const listed = await json(`/v1/runs/${id}/artifacts`);
    expect(listed).toMatchObject({ harvested: true, patch: true, changes: { changed: ["README.md"] } });
    const patch = await (await call(`/v1/runs/${id}/artifacts/changes.patch`)).text();
    expect(patch).toContain("--- a/README.md\n+++ b/README.md\n");
    expect(patch).toContain("-# a project\n");
    expect(patch).toContain(`+${WRITTEN_FILE_TEXT}`);
    expect(patch).not.toContain("keep.txt");
  }, 120_000);

  it("refuses writable without input files, saying to send them", async () => {
    const answer = await call("/v1/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ cli: "claude", prompt: "hi", writable: true }),
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { message: string }).message).toContain("writable: true needs input files");
  });

  it("runs agentcage run --remote --writable: the change set into --out, or the patch on stdout", async () => {
    const out = join(root, "out");
    const args = ["run", "claude", "[stand-in:tool_write_bash] write the answer", "--remote", service.running().url, "--in", inputs, "--writable"];
    const kept = await runCommand([...args, "--out", out], commandEnv({ AGENTCAGE_TOKEN: service.token() }));
    expect(kept.code, kept.stderr).toBe(COMPLETED);
    expect(readFileSync(join(out, "out", "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
    expect(readFileSync(join(out, "changes.patch"), "utf8")).toBe("");
    expect(JSON.parse(readFileSync(join(out, "changes.json"), "utf8"))).toMatchObject({ added: [], changed: [], deleted: [], outFiles: 1 });
    expect(kept.stderr).toContain("changes: none to the inputs");

    const printed = await runCommand(args, commandEnv({ AGENTCAGE_TOKEN: service.token() }));
    expect(printed.code, printed.stderr).toBe(COMPLETED);
    expect(printed.stdout).toBe("");
    expect(printed.stderr).toContain("changes: none to the inputs");
  }, 180_000);
});
