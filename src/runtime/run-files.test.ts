// runFiles, against the fake engine: what construction refuses (a value it does not know, and what
// would bind this disk anyway: writeBound "mount", declared mounts, a staged pool), and a Run through
// the engine composed with volumes only, its inputs put in before the agent and mounted read-only.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { AgentContainerError, createAgentContainerRuntime, type RunPlanFunction } from "../index.js";
import { runVolumeName, volumeHolderName } from "./index.js";
import type { RunFiles } from "../subpaths/runtime.js";

const silent = pino({ level: "silent" });
const root = mkdtempSync(join(tmpdir(), "agentcage-run-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const plan: RunPlanFunction = () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) });
let made = 0;
const staging = () => ({ runtimeDir: join(root, `staging-${made++}`) });

describe("runFiles at construction", () => {
  it("refuses a value it does not know, quoting it and naming both it knows", () => {
    const make = () => createAgentContainerRuntime({ container: { image: "agent:1" }, run: plan, runFiles: "nfs" as RunFiles });
    expect(make).toThrow(AgentContainerError);
    expect(make).toThrow(/^runFiles "nfs" is not one of disk, engine; pass "engine" .* or leave it out/);
  });

  it('refuses "engine" with writeBound "mount", a tmpfs of this disk', () => {
    expect(() =>
      createAgentContainerRuntime({ container: { image: "agent:1", staging: staging() }, run: plan, runFiles: "engine", writeBound: "mount" }),
    ).toThrow(/runFiles "engine" .* writeBound "mount" .*; leave writeBound out, or pass runFiles "disk"/);
  });

  it('refuses "engine" with declared mounts, binds of this disk', () => {
    const container = { image: "agent:1", mounts: { runtimeDir: root, entries: [{ path: "cache", agentPath: "/cache" }] } };
    expect(() => createAgentContainerRuntime({ container, run: plan, runFiles: "engine" })).toThrow(
      /runFiles "engine" mounts nothing of this host's disk, and container.mounts binds 1 entry of it; leave container.mounts out/,
    );
  });

  it('refuses "engine" with a pool of a staged declaration, whose members bind their work/', () => {
    expect(() =>
      createAgentContainerRuntime({ container: { image: "agent:1", staging: staging() }, run: plan, runFiles: "engine", pool: { size: 1 } }),
    ).toThrow(/pool with a staged declaration needs runFiles "disk"/);
  });

  it('takes "engine" for a declaration with no staging (nothing to bind), and "disk" or nothing anywhere', () => {
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1" }, run: plan, runFiles: "engine", engine: createFakeEngine() })).not.toThrow();
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1", staging: staging() }, run: plan, runFiles: "disk" })).not.toThrow();
  });
});

describe("a Run through the engine", () => {
  it("composes volumes only: its inputs read-only where work/ is, put in before the agent, and its out/ over them", async () => {
    const specs: Array<{ name: string; mounts: readonly { Type: string; Source: string; Target: string; ReadOnly: boolean }[] }> = [];
    const engine = createFakeEngine((spec) => {
      specs.push({ name: spec.name, mounts: spec.mounts });
      return {};
    });
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, staging: staging() }, run: plan, engine, runFiles: "engine" });
    const inputs = mkdtempSync(join(root, "inputs-"));
    writeFileSync(join(inputs, "a.txt"), "one\n");
    const outcome = await runtime.run({ text: "hi" }, { inputs: { directory: inputs } });
    expect(outcome.error).toBeUndefined();
    const { runId } = outcome;
    const [holder, agent] = specs;
    expect(holder?.name).toBe(volumeHolderName(runId));
    expect(agent?.mounts).toEqual([
      { Type: "volume", Source: runVolumeName("inputs", runId), Target: "/work", ReadOnly: true },
      { Type: "volume", Source: runVolumeName("out", runId), Target: "/work/out", ReadOnly: false },
    ]);
    const putBeforeStart = engine.calls.findIndex((call) => call.startsWith(`putArchive ${volumeHolderName(runId)} /inputs`));
    expect(putBeforeStart).toBeGreaterThan(-1);
    expect(putBeforeStart).toBeLessThan(engine.calls.indexOf(`create agentcage-${runId}`));
    expect([...engine.volumes().keys()]).toEqual([]);
    expect(engine.existing()).toEqual([]);
  });

  it("refuses a Run with secret files, which are bound from this disk, as invalid_request before any container", async () => {
    const engine = createFakeEngine();
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, staging: staging() }, run: plan, engine, runFiles: "engine" });
    const outcome = await runtime.run({ text: "hi" }, { secretFiles: [{ agentPath: "/home/agent/.login", content: "s3cr3t-value" }] });
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(outcome.error).toMatch(/runFiles "engine" mounts nothing of this host's disk, and this Run has 1 secret file/);
    expect(engine.calls.filter((call) => call.startsWith("create"))).toEqual([]);
  });
});
