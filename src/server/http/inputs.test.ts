// A Run's input files through the real app over a file store and scripted Runs (route logic: no
// engine): each hostile archive is refused (400) naming its entry, no Run is made and nothing is
// written anywhere, the service's own directory included; a good archive is the Run's inputs/, and
// the Run it belongs to is handed it. (A real agent reading its inputs over HTTP is
// artifacts.docker.test.ts's.)

import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import tar, { type Header } from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { scriptedRunner, useAppInMemory, type Handed } from "../../../test/support/app.js";

// The file store, laid out as serve's: <root>/rt/service/runs/<id>/inputs/.
const root = mkdtempSync(join(tmpdir(), "agentcage-inputs-http-"));
const runtimeDir = join(root, "rt");
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** What each Run's runner was handed, and the files in its inputs/ then, by path. */
const handed: Array<Handed & { readonly files: Record<string, string> }> = [];
const service = useAppInMemory("inputs-http", {
  runtimeDir,
  runner: scriptedRunner((_prompt, given) => {
    const inputs = given.inputs;
    const files =
      inputs === undefined
        ? {}
        : Object.fromEntries(
            (readdirSync(inputs, { recursive: true, withFileTypes: true }) as Array<{ isFile: () => boolean; parentPath: string; name: string }>)
              .filter((entry) => entry.isFile())
              .map((entry) => [relative(inputs, join(entry.parentPath, entry.name)), readFileSync(join(entry.parentPath, entry.name), "utf8")]),
          );
    handed.push({ ...given, files });
    return {};
  }),
});

type Item = { readonly header: Partial<Header> & { name: string; pax?: Record<string, string> }; readonly content?: string };

async function tarOf(items: readonly Item[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const item of items)
    await new Promise<void>((resolve, reject) => pack.entry(item.header, item.content ?? "", (error) => (error ? reject(error) : resolve())));
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** POST /v1/runs as multipart: the request part, then the archive as the `inputs` file part, as fetch would send the form. */
async function submit(request: object, archive?: Buffer, headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append("request", JSON.stringify(request));
  if (archive !== undefined) form.append("inputs", new Blob([archive], { type: "application/x-tar" }), "inputs.tar");
  return post(form, headers);
}

async function post(form: FormData, headers: Record<string, string> = {}) {
  const encoded = new Request("http://localhost/", { method: "POST", body: form });
  return service.call(service.token, "/v1/runs", {
    method: "POST",
    payload: Buffer.from(await encoded.arrayBuffer()),
    headers: { "content-type": encoded.headers.get("content-type") as string, ...headers },
  });
}

const call = async (path: string) => (await service.call(service.token, path)).json();

/** Every path below the test's root (the service's directory and its parent), sorted. */
// The audit log records the refused submit, as it does every one: that is not the Run writing something.
const everything = () => (readdirSync(root, { recursive: true, encoding: "utf8" }) as string[]).filter((name) => !name.includes("audit.jsonl")).sort();

const escapeName = `agentcage-escape-${randomBytes(6).toString("hex")}`;

const HOSTILE: ReadonlyArray<{ readonly what: string; readonly items: Item[]; readonly entry: string; readonly says: string }> = [
  { what: "an absolute name", items: [{ header: { name: `/tmp/${escapeName}` }, content: "x" }], entry: `/tmp/${escapeName}`, says: "is an absolute name" },
  // From service/runs/<id>/inputs/, five levels up is the test's root, six its parent.
  {
    what: "a name with ..",
    items: [
      { header: { name: "ok.txt" }, content: "x" },
      { header: { name: `../../../../../${escapeName}` }, content: "x" },
    ],
    entry: `../../../../../${escapeName}`,
    says: 'climbs out of the archive with ".."',
  },
  {
    what: "a .. deeper in",
    items: [{ header: { name: `src/../../../../../../${escapeName}` }, content: "x" }],
    entry: `src/../../../../../../${escapeName}`,
    says: 'climbs out of the archive with ".."',
  },
  {
    what: "a symlink",
    items: [{ header: { name: "passwd", type: "symlink", linkname: "/etc/passwd" } }],
    entry: "passwd",
    says: 'is a symbolic link (to "/etc/passwd")',
  },
  {
    what: "a hardlink",
    items: [{ header: { name: "a.txt" }, content: "a" }, { header: { name: "shadow", type: "link", linkname: "/etc/shadow" } }],
    entry: "shadow",
    says: 'is a hard link (to "/etc/shadow")',
  },
  {
    what: "a character device",
    items: [{ header: { name: "null", type: "character-device", devmajor: 1, devminor: 3 } }],
    entry: "null",
    says: "is a character-device",
  },
  { what: "a block device", items: [{ header: { name: "sda", type: "block-device", devmajor: 8, devminor: 0 } }], entry: "sda", says: "is a block-device" },
  { what: "a FIFO", items: [{ header: { name: "pipe", type: "fifo" } }], entry: "pipe", says: "is a FIFO" },
  {
    what: "10,000 entries, past the cap",
    items: Array.from({ length: 10_000 }, (_, i) => ({ header: { name: `many/f${i}` } })),
    entry: "many/f5000",
    says: "is past MAX_ARCHIVE_ENTRIES (5000 files and directories)",
  },
];

describe("input files for a Run, over HTTP", () => {
  for (const hostile of HOSTILE) {
    it(`refuses an archive with ${hostile.what}, naming the entry, making no Run and writing nothing`, async () => {
      const before = everything();
      const answer = await submit({ cli: "claude", prompt: "read the inputs" }, await tarOf(hostile.items));
      expect(answer.status).toBe(400);
      const body = answer.json() as { error: string; message: string };
      expect(body).toEqual({ error: "invalid_inputs", message: expect.stringContaining(`inputs entry ${JSON.stringify(hostile.entry)} ${hostile.says}`) });
      expect(everything()).toEqual(before);
      expect(existsSync(join(tmpdir(), escapeName))).toBe(false);
      expect(existsSync(`/tmp/${escapeName}`)).toBe(false);
      expect(((await call("/v1/runs")) as { runs: unknown[] }).runs).toEqual([]);
    });
  }

  it("refuses a multipart request part in the same words as a JSON body, and parts out of order", async () => {
    const unknown = await submit({ cli: "claude", prompt: "hi", temperature: 2 }, await tarOf([{ header: { name: "a.txt" }, content: "a" }]));
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toMatchObject({ error: "invalid_request", message: expect.stringContaining("temperature") });
    const form = new FormData();
    form.append("inputs", new Blob([await tarOf([])]), "inputs.tar");
    form.append("request", JSON.stringify({ cli: "claude", prompt: "hi" }));
    const reversed = await post(form);
    expect(reversed.status).toBe(400);
    expect(reversed.json()).toMatchObject({ message: expect.stringContaining("the first part is not `request`") });
    expect(((await call("/v1/runs")) as { runs: unknown[] }).runs).toEqual([]);
  });

  it("refuses an archive over MAX_INPUT_ARCHIVE_BYTES with 413, and makes no Run", async () => {
    // Small files, each behind a 4 MB pax header: within every per-file rule, over the archive's bytes.
    const big = await tarOf(Array.from({ length: 22 }, (_, i) => ({ header: { name: `f${i}`, pax: { comment: "x".repeat(4_000_000) } }, content: "x" })));
    // The service stops reading past the bound, answers, and closes the connection.
    const answer = await submit({ cli: "claude", prompt: "hi" }, big);
    expect(answer.status, answer.text).toBe(413);
    expect(answer.headers["connection"]).toBe("close");
    expect(answer.json()).toMatchObject({ error: "invalid_inputs", message: expect.stringContaining("MAX_INPUT_ARCHIVE_BYTES") });
    expect(((await call("/v1/runs")) as { runs: unknown[] }).runs).toEqual([]);
    expect(readdirSync(join(runtimeDir, "service", "runs"), { encoding: "utf8" }).length).toBe(0);
  });

  it("extracts a good archive into the Run's inputs/ before it answers, and the Run runs with it", async () => {
    const archive = await tarOf([
      { header: { name: "./", type: "directory" } },
      { header: { name: "./README.md" }, content: "# the task\n" },
      { header: { name: "./src/main.ts" }, content: "console.log('hi');\n" },
    ]);
    const answer = await submit({ cli: "claude", prompt: "What is the capital of France?", maxTurns: 3 }, archive, { "idempotency-key": "inputs-1" });
    expect(answer.status).toBe(202);
    const run = answer.json() as { id: string; inputs: unknown };
    expect(run.inputs).toEqual({ files: 2, directories: 1, bytes: 11 + 19 });
    const inputs = join(runtimeDir, "service", "runs", run.id, "inputs");
    expect(readFileSync(join(inputs, "README.md"), "utf8")).toBe("# the task\n");
    expect(readFileSync(join(inputs, "src", "main.ts"), "utf8")).toBe("console.log('hi');\n");

    // The same key again: the same Run, and its archive is read and dropped.
    const again = await submit({ cli: "claude", prompt: "What is the capital of France?", maxTurns: 3 }, archive, { "idempotency-key": "inputs-1" });
    expect(again.status).toBe(200);
    expect(again.json()["id"]).toBe(run.id);
    expect(readdirSync(join(runtimeDir, "service", "runs"))).toEqual([run.id]);

    // The Run was handed its inputs/, whole, once (the same key made no second Run).
    expect(await service.ended(service.token, run.id)).toMatchObject({ state: "completed", inputs: { files: 2 }, outcome: { ok: true, reason: "completed" } });
    expect(handed).toEqual([expect.objectContaining({ inputs, files: { "README.md": "# the task\n", "src/main.ts": "console.log('hi');\n" } })]);
  });
});
