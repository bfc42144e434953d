// A Run's container ends by itself at its deadline, with nobody left to stop it: the process that
// started it is SIGKILLed mid-Run (or the `docker run` client of commandFor's words is), no sweep
// runs, and the engine's own record says the container stopped a little after its timeout: at the
// agent's stop signal, or a grace later (SIGKILL) for an agent that ignores it. On both kinds of
// image: the busybox test image (busybox's timeout) and the Debian agent image (coreutils'); an
// image with no timeout at all ends each Run as unavailable, saying what to add.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, mkdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { TEST_IMAGE, capturingLogger, docker } from "../../test/support/engine.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHILD = path.join(REPO, "test/support/run-in-child.mjs");
const TIMEOUT_S = 3;
const GRACE_S = 2;
/** The container's timer fires this long after the Run's own (CONTAINER_DEADLINE_MARGIN_SECONDS). */
const MARGIN_S = 1;
/** Up to 3x what it takes on an idle machine, as every time bound in a test. */
const SLACK = 3;

const AGENT_SLEEPS = "echo up; sleep 1000";
const AGENT_IGNORES_TERM = "trap '' TERM; echo up; while :; do sleep 1; done";

let runtimeDir: string;
const children: ChildProcess[] = [];
const containers: string[] = [];

beforeAll(async () => {
  // The children run the built library (test/support/build-once.ts), as a user's process would.
  runtimeDir = await mkdtemp(path.join(tmpdir(), "agentcage-deadline-"));
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  // What the killed children left (their stopped containers, their Run directories and the tmpfs in
  // each) goes the way it would in use: the next process's sweep.
  await createAgentContainerRuntime({
    container: { image: TEST_IMAGE, staging: { runtimeDir }, logger: capturingLogger().logger },
    run: () => ({ args: ["true"], stdin: "", outcome: async () => ({ ok: true }) }),
  }).sweep();
  for (const id of containers) execFileSync("docker", ["rm", "--force", id], { stdio: "ignore" });
  await rm(runtimeDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first running container matching a `docker ps` filter, within 30 s. */
async function runningContainer(filter: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const id = docker("ps", "--quiet", "--filter", filter).split("\n")[0];
    if (id !== undefined && id !== "") return id;
    await sleep(50);
  }
  throw new Error(`no running container with ${filter} within 30 s`);
}

type Ended = { readonly livedMs: number; readonly exitCode: number } | "gone";

/** Waits until the container is not running (or gone), up to `ms`; then what the engine recorded of its life. */
async function endOf(id: string, ms: number): Promise<Ended> {
  const until = Date.now() + ms;
  for (;;) {
    let state: { Running: boolean; StartedAt: string; FinishedAt: string; ExitCode: number };
    try {
      state = JSON.parse(docker("inspect", "--format", "{{json .State}}", id)) as typeof state;
    } catch {
      return "gone";
    }
    if (!state.Running) return { livedMs: Date.parse(state.FinishedAt) - Date.parse(state.StartedAt), exitCode: state.ExitCode };
    if (Date.now() > until) throw new Error(`container ${id} still runs ${ms} ms after its orchestrator was killed; its deadline was ${TIMEOUT_S} s`);
    await sleep(100);
  }
}

/**
 * The seconds the container's own timer was given, read back from the words it runs: what was
 * left of the Run's timeout when it was composed (its start-up sweep and staging came first), plus
 * the margin.
 */
function timerSecondsOf(id: string): number {
  const words = JSON.parse(docker("inspect", "--format", "{{json .Config.Cmd}}", id)) as string[];
  const at = words.indexOf("timeout");
  expect(words.slice(at, at + 5)).toEqual(["timeout", "-s", "TERM", "-k", String(GRACE_S)]);
  return Number(words[at + 5]);
}

/** The engine stamps StartedAt once the process runs; the timer may have started a little before. */
const STAMP_SKEW_MS = 200;

/** Starts a Run in a child process, waits for its container to run, SIGKILLs the child. */
async function orphanOf(image: string, script: string): Promise<string> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify({ runtimeDir, image, script, timeoutSeconds: TIMEOUT_S, stopGraceSeconds: GRACE_S })], {
    cwd: REPO,
  });
  children.push(child);
  const session = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve((JSON.parse(text.split("\n")[0] as string) as { session: string }).session);
    });
    child.on("close", () => reject(new Error("the child ended before it said its session")));
  });
  const id = await runningContainer(`label=agentcage.session=${session}`);
  containers.push(id);
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("close", resolve));
  return id;
}

describe.each([
  ["the busybox test image", TEST_IMAGE],
  ["the Debian agent image", AGENT_IMAGE],
])("on %s, the container of a Run whose process was SIGKILLed", (_what, image) => {
  it("ends at its deadline when the agent heeds its stop signal", async () => {
    const id = await orphanOf(image, AGENT_SLEEPS);
    expect(docker("inspect", "--format", "{{.State.Running}}", id)).toBe("true");
    const seconds = timerSecondsOf(id);
    expect(seconds).toBeLessThanOrEqual(TIMEOUT_S + MARGIN_S);
    const ended = await endOf(id, SLACK * (TIMEOUT_S + MARGIN_S + GRACE_S) * 1000);
    expect(ended).not.toBe("gone"); // no sweep ran: the engine keeps the stopped container
    const { livedMs } = ended as Exclude<Ended, "gone">;
    expect(livedMs).toBeGreaterThanOrEqual(seconds * 1000 - STAMP_SKEW_MS);
    expect(livedMs).toBeLessThan(SLACK * seconds * 1000);
  }, 60_000);

  it("ends a grace later, killed, when the agent ignores its stop signal", async () => {
    const id = await orphanOf(image, AGENT_IGNORES_TERM);
    const seconds = timerSecondsOf(id);
    const ended = await endOf(id, SLACK * (TIMEOUT_S + MARGIN_S + GRACE_S) * 1000);
    expect(ended).not.toBe("gone");
    const { livedMs } = ended as Exclude<Ended, "gone">;
    // Not before the grace: the agent had its stop signal, then the grace, then SIGKILL.
    expect(livedMs).toBeGreaterThanOrEqual((seconds + GRACE_S) * 1000 - STAMP_SKEW_MS);
    expect(livedMs).toBeLessThan(SLACK * (seconds + GRACE_S) * 1000);
  }, 60_000);
});

describe("commandFor's words run by hand", () => {
  it("make a container that ends, and goes (--rm), at its deadline after the client is SIGKILLed", async () => {
    const runtime = createAgentContainerRuntime({
      container: {
        image: TEST_IMAGE,
        timeoutSeconds: TIMEOUT_S,
        limits: { stopGraceSeconds: GRACE_S },
        labels: { "deadline-test": "by-hand" },
        logger: capturingLogger().logger,
      },
      run: () => ({ args: ["sh", "-c", AGENT_SLEEPS], stdin: "", outcome: async () => ({ ok: true }) }),
    });
    const command = runtime.commandFor({ text: "" });
    const client = spawn(command.command, command.args, { env: { ...process.env, ...command.env }, stdio: ["pipe", "ignore", "ignore"] });
    children.push(client);
    const id = await runningContainer(`label=agentcage.session=${runtime.session}`);
    containers.push(id);
    const startedAt = Date.now();
    client.kill("SIGKILL");
    const ended = await endOf(id, SLACK * (TIMEOUT_S + MARGIN_S + GRACE_S) * 1000);
    // --rm: the engine removes it once it has stopped; give it the same bound to do so.
    if (ended !== "gone") {
      for (let i = 0; i < 100 && docker("ps", "--all", "--quiet", "--filter", `id=${id}`) !== ""; i++) await sleep(100);
    }
    expect(docker("ps", "--all", "--quiet", "--filter", `id=${id}`)).toBe("");
    expect(Date.now() - startedAt).toBeLessThan(SLACK * (TIMEOUT_S + MARGIN_S + GRACE_S) * 1000);
  }, 60_000);
});

describe("an image with no timeout", () => {
  const image = `agentcage-test-no-timeout:${process.pid}`;
  beforeAll(async () => {
    // The test image's busybox alone, with sh and sleep but no timeout applet.
    const root = await mkdtemp(path.join(tmpdir(), "agentcage-no-timeout-"));
    await mkdir(path.join(root, "bin"));
    execFileSync("cp", [process.env["AGENTCAGE_BUSYBOX"] ?? "/bin/busybox", path.join(root, "bin", "busybox")]);
    for (const applet of ["sh", "sleep", "echo"]) await symlink("busybox", path.join(root, "bin", applet));
    const tar = execFileSync("tar", ["-C", root, "-c", "."], { maxBuffer: 64 * 1024 * 1024 });
    execFileSync("docker", ["import", "--change", "ENV PATH=/bin", "-", image], { input: tar, stdio: ["pipe", "ignore", "pipe"] });
    await rm(root, { recursive: true, force: true });
  }, 60_000);
  afterAll(() => execFileSync("docker", ["image", "rm", "--force", image], { stdio: "ignore" }));

  it.each([
    ["after the image's own entrypoint", undefined],
    ["in front of a declared entrypoint", ["/bin/sh", "-c"]],
  ])(
    "ends each Run as unavailable, %s, saying what the image lacks and what to add",
    async (_where, entrypoint) => {
      const runtime = createAgentContainerRuntime({
        container: { image, ...(entrypoint === undefined ? {} : { entrypoint }), logger: capturingLogger().logger },
        run: () => ({ args: entrypoint === undefined ? ["sh", "-c", "echo ran"] : ["echo ran"], stdin: "", outcome: async () => ({ ok: true }) }),
      });
      const outcome = await runtime.run({ text: "" });
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
      expect(outcome.error).toContain("has no `timeout` on its PATH");
    },
    60_000,
  );
});
