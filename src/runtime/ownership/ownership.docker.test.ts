// Ownership against the real engine and real processes: a second process's start-up sweep leaves
// the first's live Run alone; a process killed mid-Run leaves a container and a Run directory that
// the next sweep removes at once; a container removed from outside ends its Run as cancelled.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime, type Outcome } from "../../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, docker } from "../../../test/support/engine.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CHILD = path.join(REPO, "test/support/run-in-child.mjs");

let runtimeDir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  // The children run the built library (test/support/build-once.ts), as a user's process would.
  runtimeDir = await mkdtemp(path.join(tmpdir(), "agentcage-ownership-"));
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await rm(runtimeDir, { recursive: true, force: true });
});

type Child = { readonly session: Promise<string>; readonly outcome: Promise<Outcome>; readonly process: ChildProcessWithoutNullStreams };

function startChild(seconds: number): Child {
  const child = spawn(process.execPath, [CHILD, JSON.stringify({ runtimeDir, image: TEST_IMAGE, seconds })], { cwd: REPO });
  children.push(child);
  let text = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = new Promise<string[]>((resolve) => child.on("close", () => resolve(text.split("\n").filter((l) => l !== ""))));
  const session = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const first = text.split("\n")[0];
      if (text.includes("\n") && first !== undefined) resolve((JSON.parse(first) as { session: string }).session);
    });
    child.on("close", () => reject(new Error(`the child ended before it said its session: ${stderr}`)));
  });
  const outcome = lines.then((all) => {
    const last = all.at(-1);
    if (last === undefined || !last.includes('"outcome"')) throw new Error(`the child printed no Outcome: ${all.join("\n")} ${stderr}`);
    return (JSON.parse(last) as { outcome: Outcome }).outcome;
  });
  return { session, outcome, process: child };
}

const containersOf = (session: string): string[] =>
  docker("ps", "--all", "--quiet", "--filter", `label=agentcage.session=${session}`)
    .split("\n")
    .filter((id) => id !== "");

async function runningContainerOf(session: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const id = docker("ps", "--quiet", "--filter", `label=agentcage.session=${session}`).split("\n")[0];
    if (id !== undefined && id !== "") return id;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no running container of session ${session} within 10 s`);
}

describe("two processes with default options", () => {
  it("each complete their Run: the second's start-up sweep leaves the first's live Run alone", async () => {
    const first = startChild(4);
    await runningContainerOf(await first.session);
    const second = startChild(1);
    const [a, b] = await Promise.all([first.outcome, second.outcome]);
    expect(b).toMatchObject({ ok: true, reason: "completed" });
    expect(a).toMatchObject({ ok: true, reason: "completed", exit: { code: 0 } });
  }, 60_000);
});

describe("a process killed with SIGKILL mid-Run", () => {
  it("leaves a container and a Run directory that the next process's sweep removes at once", async () => {
    const doomed = startChild(120);
    doomed.outcome.catch(() => undefined); // it is killed: no Outcome comes
    const session = await doomed.session;
    const container = await runningContainerOf(session);
    doomed.process.kill("SIGKILL");
    await new Promise((resolve) => doomed.process.once("close", resolve));
    expect(containersOf(session)).toEqual([container]);
    const runDirectory = (await readdir(runtimeDir)).find((name) => /^[0-9a-f]{16}$/.test(name));
    expect(runDirectory).toBeDefined();

    const next = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, staging: { runtimeDir }, logger: capturingLogger().logger },
      run: () => ({ args: ["true"], stdin: "", outcome: collectStdout }),
    });
    const swept = await next.sweep();
    expect(swept.removed.map((id) => id.slice(0, container.length))).toContain(container);
    expect(swept.removedRunDirectories).toContain(runDirectory);
    expect(containersOf(session)).toEqual([]);
    expect(await readdir(runtimeDir)).not.toContain(runDirectory);
  }, 60_000);
});

describe("a container removed from outside", () => {
  it("ends its Run as cancelled, saying so, not as the agent's failure", async () => {
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger },
      run: () => ({ args: ["sleep", "60"], stdin: "", outcome: collectStdout }),
    });
    const running = runtime.run({ text: "" });
    const id = await runningContainerOf(runtime.session);
    docker("rm", "--force", id);
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, reason: "cancelled" });
    expect(outcome.error).toContain("the container was removed from outside the Run");
  }, 60_000);
});
