// The Run's volumes (a process that cannot mount), against the fake engine: out/, a writable work/
// and a session store's working copy made (and filled) before the agent, mounted in place of their
// binds, copied back after it for the Harvest, the change set and the kept store; a full one ending
// write_limit, a link refused as the Harvest refuses; after every Run no volume or holder left.

import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../../test/support/fake-engine.js";
import { AgentContainerError, createAgentContainerRuntime, type RunPlanFunction } from "../../index.js";
import { outVolumeName, runVolumeName, volumeHolderName } from "../index.js";
import { sessionStorePath } from "../../staging/index.js";

const silent = pino({ level: "silent" });
const root = mkdtempSync(join(tmpdir(), "agentcage-out-volume-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const plan: RunPlanFunction = () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) });
let made = 0;

type Entry = {
  readonly name: string;
  readonly type?: "file" | "directory" | "symlink" | "fifo";
  readonly content?: string;
  readonly size?: number;
  readonly linkname?: string;
};

/** The archive the engine answers for the holder's /out (or /work, /session): its root directory, then `entries`. */
async function archiveOf(entries: readonly Entry[], root = "out"): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of [{ name: `${root}/`, type: "directory" as const }, ...entries]) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(
        {
          name: entry.name,
          type: entry.type ?? "file",
          mode: entry.type === "directory" ? 0o755 : 0o644,
          ...(entry.linkname === undefined ? {} : { linkname: entry.linkname }),
        },
        entry.type === undefined || entry.type === "file" ? (entry.content ?? "") : "",
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

function setUp(entries: readonly Entry[], writableBytes = 1024 * 1024) {
  const specs: Array<{ name: string; mounts: readonly { Type: string; Source: string; Target: string }[] }> = [];
  const engine = createFakeEngine(
    (spec) => {
      specs.push({ name: spec.name, mounts: spec.mounts });
      return {};
    },
    { archive: () => archiveOf(entries) },
  );
  const runtimeDir = join(root, `staging-${made}`);
  const harvestTo = join(root, `harvest-${made++}`);
  const runtime = createAgentContainerRuntime({
    container: { image: "agent:1", logger: silent, staging: { runtimeDir, writableBytes } },
    run: plan,
    engine,
    writeBound: "volume",
  });
  return { engine, runtime, specs, harvestTo };
}

describe("out/ bounded by a volume of the Run's own", () => {
  it("mounts the volume where out/ is, copies what it held back for the Harvest, and leaves no volume or holder", async () => {
    const { engine, runtime, specs, harvestTo } = setUp([
      { name: "out/answer.txt", content: "42\n" },
      { name: "out/notes/", type: "directory" },
      { name: "out/notes/a.md", content: "# a\n" },
    ]);
    const outcome = await runtime.run({ text: "hi" }, { harvestTo });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 2, directories: 1 } });
    expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
    expect(readFileSync(join(harvestTo, "notes", "a.md"), "utf8")).toBe("# a\n");
    const runId = outcome.runId;
    const volume = outVolumeName(runId);
    // The holder first, with the volume; then the agent, whose out/ is the volume and no bind.
    expect(specs.map((s) => s.name)).toEqual([volumeHolderName(runId), `agentcage-${runId}`]);
    expect(specs[0]?.mounts).toEqual([{ Type: "volume", Source: volume, Target: "/out", ReadOnly: false }]);
    const agentMounts = specs[1]?.mounts ?? [];
    expect(agentMounts.filter((m) => m.Target === "/work/out")).toEqual([{ Type: "volume", Source: volume, Target: "/work/out", ReadOnly: false }]);
    expect(agentMounts.filter((m) => m.Type === "bind").map((m) => m.Target)).toEqual(["/work"]);
    expect(engine.calls.filter((call) => /^(createVolume|getArchive|removeVolume)/.test(call))).toEqual([
      `createVolume ${volume}`,
      `getArchive ${volumeHolderName(runId)} /out`,
      `removeVolume ${volume}`,
    ]);
    expect(engine.existing()).toEqual([]);
    expect([...engine.volumes().keys()]).toEqual([]);
  });

  it("makes the volume the size of staging.writableBytes, owned by the agent's uid", async () => {
    const { engine, runtime } = setUp([], 2 * 1024 * 1024);
    let seen: unknown;
    const createVolume = engine.createVolume;
    (engine as { createVolume: typeof createVolume }).createVolume = async (spec) => {
      seen = spec;
      return createVolume(spec);
    };
    await runtime.run({ text: "hi" });
    expect(seen).toMatchObject({ bytes: 2 * 1024 * 1024, inodes: 100_001, uid: 10002, gid: 10002, mode: "0755", labels: { "agentcage.owner": "agentcage" } });
  });

  it("ends a Run whose agent filled the volume as write_limit", async () => {
    const { engine, runtime, harvestTo } = setUp([{ name: "out/big", content: "x".repeat(1024 * 1024) }]);
    const outcome = await runtime.run({ text: "hi" }, { harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "write_limit" });
    expect(outcome.error).toContain("1048576 bytes (staging.writableBytes)");
    expect([...engine.volumes().keys()]).toEqual([]);
  });

  it("refuses a link in out/ as the Harvest does, copying nothing", async () => {
    const { runtime, harvestTo } = setUp([
      { name: "out/a.txt", content: "a" },
      { name: "out/passwd", type: "symlink", linkname: "/etc/passwd" },
    ]);
    const outcome = await runtime.run({ text: "hi" }, { harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "symlink", entry: '"passwd"' } } });
  });

  it("ends the Run unavailable, leaving nothing, when the engine refuses the volume", async () => {
    const engine = createFakeEngine({}, { fail: { createVolume: { statusCode: 500, message: "no tmpfs here" } } });
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, staging: { runtimeDir: join(root, "refused") } },
      run: plan,
      engine,
      writeBound: "volume",
    });
    const outcome = await runtime.run({ text: "hi" });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: "the Run's out/ volume could not be made: no tmpfs here" });
    expect(engine.existing()).toEqual([]);
  });

  it("leaves out/ empty, not half-copied, when the copy-back fails on the disk", async () => {
    // Twenty levels of 250-byte names: within the depth bound, past what the kernel takes as a path (ENAMETOOLONG).
    const deep = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(3, "0")}${"d".repeat(247)}`);
    const entries: Entry[] = [{ name: "out/first.txt", content: "written before the failure" }];
    for (let depth = 1; depth <= deep.length; depth++) entries.push({ name: `out/${deep.slice(0, depth).join("/")}/`, type: "directory" });
    const engine = createFakeEngine({}, { archive: () => archiveOf(entries) });
    const runtimeDir = join(root, "half-copied");
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, staging: { runtimeDir, keepRuns: true } },
      run: plan,
      engine,
      writeBound: "volume",
    });
    const outcome = await runtime.run({ text: "hi" });
    // The kept record's out/ is as staging made it: nothing of a copy that failed half way.
    expect(readdirSync(join(runtimeDir, outcome.runId, "work", "out"))).toEqual([]);
    expect([...engine.volumes().keys()]).toEqual([]);
  });

  it("removes a volume the engine made though its answer never came back", async () => {
    const { engine, runtime } = setUp([]);
    const createVolume = engine.createVolume;
    (engine as { createVolume: typeof createVolume }).createVolume = async (spec) => {
      await createVolume(spec);
      throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
    };
    const outcome = await runtime.run({ text: "hi" });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect([...engine.volumes().keys()]).toEqual([]);
  });

  it("keeps the holder past the agent's deadline for as long as each volume's copy-back may take", async () => {
    const { engine, runtime } = setUp([]);
    const holderWords: string[][] = [];
    const create = engine.create;
    (engine as { create: typeof create }).create = async (spec) => {
      if (spec.name.endsWith("-volumes")) holderWords.push([...spec.planArgs]);
      return create(spec);
    };
    await runtime.run({ text: "hi" }, { timeoutSeconds: 60 });
    // sleep SECONDS: 60 s of Run, its grace and the engine's margin, and 120 s (OUT_COPY_TIMEOUT_MS) for out/'s copy-back.
    const seconds = Number(holderWords[0]?.at(-1));
    expect(seconds).toBeGreaterThanOrEqual(60 + 120);
  });

  it("is swept when its Run is past its deadline, and a volume not named for its Run is left alone", async () => {
    const { engine, runtime } = setUp([]);
    const labels = (runId: string) => ({ "agentcage.owner": "agentcage", "agentcage.run": runId, "agentcage.session": "another", "agentcage.deadline": "1" });
    const left = outVolumeName("0123456789abcdef");
    await engine.createVolume({ name: left, bytes: 4096, inodes: 8, mode: "0755", labels: labels("0123456789abcdef") });
    await engine.createVolume({ name: "operators-own", bytes: 4096, inodes: 8, mode: "0755", labels: labels("fedcba9876543210") });
    const swept = await runtime.sweep();
    expect(swept.removedVolumes).toEqual([left]);
    expect([...engine.volumes().keys()]).toEqual(["operators-own"]);
  });

  it("sweeps a dead Run's inputs, work/ and session volumes too, by their names", async () => {
    const { engine, runtime } = setUp([]);
    const labels = (runId: string, kind: string) => ({
      "agentcage.owner": "agentcage",
      "agentcage.run": runId,
      "agentcage.session": "another",
      "agentcage.deadline": "1",
      "agentcage.volume": kind,
    });
    const work = runVolumeName("work", "0123456789abcdef");
    const session = runVolumeName("session", "0123456789abcdef");
    const inputs = runVolumeName("inputs", "0123456789abcdef");
    await engine.createVolume({ name: inputs, bytes: 4096, inodes: 8, mode: "0755", labels: labels("0123456789abcdef", "inputs") });
    await engine.createVolume({ name: work, bytes: 4096, inodes: 8, mode: "0755", labels: labels("0123456789abcdef", "work") });
    await engine.createVolume({ name: session, bytes: 4096, inodes: 8, mode: "0755", labels: labels("0123456789abcdef", "session") });
    await engine.createVolume({ name: "agentcage-cache-0123456789abcdef", bytes: 4096, inodes: 8, mode: "0755", labels: labels("0123456789abcdef", "cache") });
    const swept = await runtime.sweep();
    expect([...swept.removedVolumes].sort()).toEqual([inputs, session, work]);
    expect([...engine.volumes().keys()]).toEqual(["agentcage-cache-0123456789abcdef"]);
  });

  it("refuses a writeBound it does not know, quoting it", () => {
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1" }, run: plan, writeBound: "disk" as "volume" })).toThrow(AgentContainerError);
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1" }, run: plan, writeBound: "disk" as "volume" })).toThrow(
      /writeBound "disk" is not one of mount, volume/,
    );
  });
});

/** The entries of a tar archive: name, type, owner, mode, content. */
async function entriesOf(bytes: Buffer): Promise<Array<{ name: string; type: string; uid: number; mode: number; content: string }>> {
  const extract = tar.extract();
  const found: Array<{ name: string; type: string; uid: number; mode: number; content: string }> = [];
  const reading = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      found.push({
        name: entry.header.name,
        type: entry.header.type ?? "file",
        uid: entry.header.uid ?? 0,
        mode: entry.header.mode ?? 0,
        content: Buffer.concat(chunks).toString(),
      });
    }
  })();
  extract.end(bytes);
  await reading;
  return found;
}

function setUpVolumes(
  answers: Readonly<Record<string, readonly Entry[]>>,
  staging: Record<string, unknown> = {},
  outcome: () => Promise<{ ok: true; sessionId?: string }> = async () => ({ ok: true }),
) {
  const specs: Array<{ name: string; mounts: readonly { Type: string; Source: string; Target: string }[] }> = [];
  const engine = createFakeEngine(
    (spec) => {
      specs.push({ name: spec.name, mounts: spec.mounts });
      return {};
    },
    { archive: (_container, path) => archiveOf(answers[path] ?? [], path.slice(1)) },
  );
  const runtimeDir = join(root, `staging-${made}`);
  const harvestTo = join(root, `harvest-${made++}`);
  const runtime = createAgentContainerRuntime({
    container: { image: "agent:1", logger: silent, staging: { runtimeDir, writableBytes: 1024 * 1024, ...staging } },
    run: () => ({ args: ["agent"], stdin: "", outcome }),
    engine,
    writeBound: "volume",
  });
  return { engine, runtime, specs, harvestTo, runtimeDir };
}

const INPUTS = { files: { "a.txt": "one\n", "b.txt": "two\n" } };

describe("a writable work/ bounded by a volume of the Run's own", () => {
  it("puts the staged inputs in the volume as the agent's, mounts it at work/, and copies it back for the change set", async () => {
    const { engine, runtime, specs, harvestTo, runtimeDir } = setUpVolumes(
      {
        "/work": [
          { name: "work/a.txt", content: "one\nedited\n" },
          { name: "work/b.txt", content: "two\n" },
          { name: "work/c.txt", content: "new\n" },
          { name: "work/out/", type: "directory" },
          { name: "work/out/answer", content: "42\n" },
        ],
      },
      { writableWork: true },
    );
    const outcome = await runtime.run({ text: "hi" }, { inputs: INPUTS, harvestTo });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({
      ok: true,
      reason: "completed",
      harvest: { ok: true, changes: { added: ["c.txt"], changed: ["a.txt"], deleted: [], outFiles: 1 } },
    });
    expect(readFileSync(join(harvestTo, "out", "answer"), "utf8")).toBe("42\n");
    const runId = outcome.runId;
    const volume = runVolumeName("work", runId);
    const holder = volumeHolderName(runId);
    expect(specs.map((s) => s.name)).toEqual([holder, `agentcage-${runId}`]);
    expect(specs[0]?.mounts).toEqual([{ Type: "volume", Source: volume, Target: "/work", ReadOnly: false }]);
    const agentMounts = specs[1]?.mounts ?? [];
    expect(agentMounts.filter((m) => m.Target === "/work")).toEqual([{ Type: "volume", Source: volume, Target: "/work", ReadOnly: false }]);
    expect(agentMounts.filter((m) => m.Type === "bind")).toEqual([]);
    expect(engine.calls.filter((call) => /^(createVolume|putArchive|getArchive|removeVolume)/.test(call))).toEqual([
      `createVolume ${volume}`,
      `putArchive ${holder} /work`,
      `getArchive ${holder} /work`,
      `removeVolume ${volume}`,
    ]);
    const put = await entriesOf(engine.archivesPut()[0]?.bytes ?? Buffer.alloc(0));
    expect(put.map((e) => [e.name, e.type, e.uid]).sort()).toEqual([
      ["a.txt", "file", 10002],
      ["b.txt", "file", 10002],
      ["out/", "directory", 10002],
    ]);
    expect(put.find((e) => e.name === "a.txt")?.content).toBe("one\n");
    expect(engine.existing()).toEqual([]);
    expect([...engine.volumes().keys()]).toEqual([]);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });

  it("makes the volume what staging put in work/ plus staging.writableBytes", async () => {
    const { engine, runtime } = setUpVolumes({}, { writableWork: true });
    const sizes: unknown[] = [];
    const createVolume = engine.createVolume;
    (engine as { createVolume: typeof createVolume }).createVolume = async (spec) => {
      sizes.push({ bytes: spec.bytes, inodes: spec.inodes, labels: spec.labels["agentcage.volume"] });
      return createVolume(spec);
    };
    await runtime.run({ text: "hi" }, { inputs: INPUTS });
    // Two files of a page each; a.txt, b.txt and out/ and the root, plus what the agent may make.
    expect(sizes).toEqual([{ bytes: 2 * 4096 + 1024 * 1024, inodes: 4 + 100_000, labels: "work" }]);
  });

  it("ends a Run whose agent filled its work/ volume as write_limit, leaving nothing", async () => {
    const { engine, runtime, harvestTo, runtimeDir } = setUpVolumes(
      {
        "/work": [
          { name: "work/a.txt", content: "one\n" },
          { name: "work/big", content: "x".repeat(1024 * 1024) },
        ],
      },
      { writableWork: true },
    );
    const outcome = await runtime.run({ text: "hi" }, { inputs: INPUTS, harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "write_limit" });
    expect(outcome.error).toContain("1048576 bytes (staging.writableBytes)");
    expect(engine.existing()).toEqual([]);
    expect([...engine.volumes().keys()]).toEqual([]);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });

  it("refuses a link the agent made in work/ as the change set does on the root path", async () => {
    const { engine, runtime, harvestTo } = setUpVolumes(
      {
        "/work": [
          { name: "work/a.txt", content: "one\n" },
          { name: "work/passwd", type: "symlink", linkname: "/etc/passwd" },
        ],
      },
      { writableWork: true },
    );
    const outcome = await runtime.run({ text: "hi" }, { inputs: INPUTS, harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "symlink", entry: '"passwd"' } } });
    expect([...engine.volumes().keys()]).toEqual([]);
  });

  it("keeps a staged link as staged: copied back as a link, no change", async () => {
    const inputs = mkdtempSync(join(root, "inputs-"));
    writeFileSync(join(inputs, "a.txt"), "one\n");
    symlinkSync("a.txt", join(inputs, "to-a"));
    const { engine, runtime, harvestTo } = setUpVolumes(
      {
        "/work": [
          { name: "work/a.txt", content: "one\n" },
          { name: "work/to-a", type: "symlink", linkname: "a.txt" },
          { name: "work/out/", type: "directory" },
        ],
      },
      { writableWork: true },
    );
    const outcome = await runtime.run({ text: "hi" }, { inputs: { directory: inputs }, harvestTo });
    expect(outcome).toMatchObject({ ok: true, harvest: { ok: true, changes: { added: [], changed: [], deleted: [] } } });
    const put = await entriesOf(engine.archivesPut()[0]?.bytes ?? Buffer.alloc(0));
    expect(put.filter((e) => e.type === "symlink").map((e) => e.name)).toEqual(["to-a"]);
  });

  it("refuses an entry of work/ that is neither file, directory nor link, leaving work/ as staged and copying nothing", async () => {
    const { runtime, harvestTo, runtimeDir } = setUpVolumes(
      {
        "/work": [
          { name: "work/a.txt", content: "changed\n" },
          { name: "work/pipe", type: "fifo" },
        ],
      },
      { writableWork: true, keepRuns: true },
    );
    const outcome = await runtime.run({ text: "hi" }, { inputs: INPUTS, harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "special_file", entry: '"pipe"' } } });
    const work = join(outcome.runDirectory as string, "work");
    expect(readdirSync(work).sort()).toEqual(["a.txt", "b.txt", "out"]);
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("one\n");
    expect(readdirSync(outcome.runDirectory as string)).not.toContain("work.volume");
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it("ends the Run unavailable, leaving nothing, when the engine refuses the staged inputs", async () => {
    const { engine, runtime, runtimeDir } = setUpVolumes({}, { writableWork: true });
    (engine as { putArchive: unknown }).putArchive = async () => {
      throw Object.assign(new Error("no room"), { statusCode: 500, json: { message: "no room" } });
    };
    const outcome = await runtime.run({ text: "hi" }, { inputs: INPUTS });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: "the Run's work/ volume could not be filled: no room" });
    expect(engine.existing()).toEqual([]);
    expect([...engine.volumes().keys()]).toEqual([]);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});

describe("a session store's working copy bounded by a volume of the Run's own", () => {
  const STORE = { namespace: "claude", agentPath: "/home/agent/.claude" } as const;

  it("is a volume of MAX_SESSION_STORE_BYTES, filled with the resumed store, copied back and kept", async () => {
    const first = setUpVolumes({ "/session": [{ name: "session/s1.jsonl", content: "turn 1\n" }] }, {}, async () => ({ ok: true, sessionId: "s1" }));
    const kept = await first.runtime.run({ text: "hi" }, { sessionStore: STORE });
    expect(kept).toMatchObject({ ok: true, session: { id: "s1", kept: true } });
    const runId = kept.runId;
    expect(first.specs[1]?.mounts.filter((m) => m.Target === STORE.agentPath)).toEqual([
      { Type: "volume", Source: runVolumeName("session", runId), Target: STORE.agentPath, ReadOnly: false },
    ]);
    expect(readFileSync(join(sessionStorePath(first.runtimeDir, "claude", "s1"), "s1.jsonl"), "utf8")).toBe("turn 1\n");
    expect([...first.engine.volumes().keys()]).toEqual([]);

    // A second Run of the same Staging Directory resumes it: the store goes into the volume first.
    const engine = createFakeEngine(
      {},
      { archive: (_c, path) => archiveOf(path === "/session" ? [{ name: "session/s1.jsonl", content: "turn 1\nturn 2\n" }] : [], path.slice(1)) },
    );
    const sizes: unknown[] = [];
    const createVolume = engine.createVolume;
    (engine as { createVolume: typeof createVolume }).createVolume = async (spec) => {
      sizes.push([spec.name, spec.bytes, spec.inodes]);
      return createVolume(spec);
    };
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, staging: { runtimeDir: first.runtimeDir } },
      run: () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true, sessionId: "s1" }) }),
      engine,
      writeBound: "volume",
    });
    const resumed = await runtime.run({ text: "go on" }, { sessionStore: { ...STORE, resume: "s1" } });
    expect(resumed).toMatchObject({ ok: true, session: { id: "s1", kept: true } });
    expect(sizes).toContainEqual([runVolumeName("session", resumed.runId), 256 * 1024 * 1024, 2001]);
    const put = engine.archivesPut().filter((p) => p.path === "/session");
    expect((await entriesOf(put[0]?.bytes ?? Buffer.alloc(0))).map((e) => [e.name, e.content])).toEqual([["s1.jsonl", "turn 1\n"]]);
    expect(readFileSync(join(sessionStorePath(first.runtimeDir, "claude", "s1"), "s1.jsonl"), "utf8")).toBe("turn 1\nturn 2\n");
    expect(engine.existing()).toEqual([]);
    expect([...engine.volumes().keys()]).toEqual([]);
  });

  it("keeps nothing when what the agent left there is refused", async () => {
    const { runtime, runtimeDir } = setUpVolumes({ "/session": [{ name: "session/link", type: "symlink", linkname: "/etc/passwd" }] }, {}, async () => ({
      ok: true,
      sessionId: "s2",
    }));
    const outcome = await runtime.run({ text: "hi" }, { sessionStore: STORE });
    expect(outcome).toMatchObject({ session: { kept: false } });
    expect((outcome.session as { readonly error?: string } | undefined)?.error).toContain("symbolic link");
    expect(readdirSync(runtimeDir).filter((name) => name !== "sessions")).toEqual([]);
  });
});
