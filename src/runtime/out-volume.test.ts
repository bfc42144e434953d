// out/ bounded by a volume of the Run's own (a process that cannot mount), against the fake engine:
// the volume and its holder made before the agent, the agent's out/ the volume and not a bind,
// what the volume held copied back and harvested, a full one ending write_limit, a link refused as
// the Harvest refuses; after every Run no volume and no holder left, and a dead Run's volume swept.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { AgentContainerError, createAgentContainerRuntime, outHolderName, outVolumeName, type RunPlanFunction } from "../index.js";

const silent = pino({ level: "silent" });
const root = mkdtempSync(join(tmpdir(), "agentcage-out-volume-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const plan: RunPlanFunction = () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) });
let made = 0;

type Entry = { readonly name: string; readonly type?: "file" | "directory" | "symlink"; readonly content?: string; readonly size?: number; readonly linkname?: string };

/** The archive the engine answers for the holder's /out: its root directory, then `entries`. */
async function archiveOf(entries: readonly Entry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of [{ name: "out/", type: "directory" as const }, ...entries]) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(
        { name: entry.name, type: entry.type ?? "file", mode: entry.type === "directory" ? 0o755 : 0o644, ...(entry.linkname === undefined ? {} : { linkname: entry.linkname }) },
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
  const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, staging: { runtimeDir, writableBytes } }, run: plan, engine, writeBound: "volume" });
  return { engine, runtime, specs, harvestTo };
}

describe("out/ bounded by a volume of the Run's own", () => {
  it("mounts the volume where out/ is, copies what it held back for the Harvest, and leaves no volume or holder", async () => {
    const { engine, runtime, specs, harvestTo } = setUp([{ name: "out/answer.txt", content: "42\n" }, { name: "out/notes/", type: "directory" }, { name: "out/notes/a.md", content: "# a\n" }]);
    const outcome = await runtime.run({ text: "hi" }, { harvestTo });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 2, directories: 1 } });
    expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
    expect(readFileSync(join(harvestTo, "notes", "a.md"), "utf8")).toBe("# a\n");
    const runId = outcome.runId;
    const volume = outVolumeName(runId);
    // The holder first, with the volume; then the agent, whose out/ is the volume and no bind.
    expect(specs.map((s) => s.name)).toEqual([outHolderName(runId), `agentcage-${runId}`]);
    expect(specs[0]?.mounts).toEqual([{ Type: "volume", Source: volume, Target: "/out", ReadOnly: false }]);
    const agentMounts = specs[1]?.mounts ?? [];
    expect(agentMounts.filter((m) => m.Target === "/work/out")).toEqual([{ Type: "volume", Source: volume, Target: "/work/out", ReadOnly: false }]);
    expect(agentMounts.filter((m) => m.Type === "bind").map((m) => m.Target)).toEqual(["/work"]);
    expect(engine.calls.filter((call) => /^(createVolume|getArchive|removeVolume)/.test(call))).toEqual([`createVolume ${volume}`, `getArchive ${outHolderName(runId)} /out`, `removeVolume ${volume}`]);
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
    const { runtime, harvestTo } = setUp([{ name: "out/a.txt", content: "a" }, { name: "out/passwd", type: "symlink", linkname: "/etc/passwd" }]);
    const outcome = await runtime.run({ text: "hi" }, { harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "symlink", entry: '"out/passwd"' } } });
  });

  it("ends the Run unavailable, leaving nothing, when the engine refuses the volume", async () => {
    const engine = createFakeEngine({}, { fail: { createVolume: { statusCode: 500, message: "no tmpfs here" } } });
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, staging: { runtimeDir: join(root, "refused") } }, run: plan, engine, writeBound: "volume" });
    const outcome = await runtime.run({ text: "hi" });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: "the Run's out/ volume could not be made: no tmpfs here" });
    expect(engine.existing()).toEqual([]);
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

  it("refuses a writeBound it does not know, quoting it", () => {
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1" }, run: plan, writeBound: "disk" as "volume" })).toThrow(AgentContainerError);
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1" }, run: plan, writeBound: "disk" as "volume" })).toThrow(/writeBound "disk" is not one of mount, volume/);
  });
});
