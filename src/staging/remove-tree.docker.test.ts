// Whatever an agent leaves in out/, its Run directory goes, against the real engine: a tree deeper
// than PATH_MAX allows a path for, and a directory of mode 000 with files in it. As the test's own
// uid and, when that is root, as a non-root orchestrator (a child process running the built library
// as NON_ROOT_UID, its agent as the same uid). As root out/ is a tmpfs that goes with its mount, so
// the child is where the agent's tree is on the disk, and a mode-000 directory stops rm.

import { execFileSync, spawn } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { unmountUnder } from "./writable.js";
import { TEST_IMAGE, capturingLogger, collectStdout } from "../../test/support/engine.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Levels of LEVEL_NAME: 5,000 bytes of path, past PATH_MAX (4,096), built in a fifth of the steps 5,000 levels of "d" took. */
const DEPTH = 1000;
const LEVEL_NAME = "dddd";
const NON_ROOT_UID = 1000;
const asRoot = process.getuid?.() === 0;

// busybox's `cd` gives up near PATH_MAX (about 800 levels of "dddd/"), so the tree is built from the
// bottom: each step puts the whole tree one level down, and no path the agent uses grows.
const TREES: Record<string, string> = {
  "a directory tree 5,000 bytes of path deep": `cd out && mkdir t && i=0 && while [ $i -lt ${DEPTH} ]; do mkdir n && mv t n/${LEVEL_NAME} && mv n t || exit 1; i=$((i+1)); done && echo left`,
  "a mode-000 directory with files in it": "mkdir -p out/locked/sub && echo x > out/locked/f && echo y > out/locked/sub/g && chmod 000 out/locked && echo left",
};

const scratch = mkdtempSync(path.join(tmpdir(), "agentcage-remove-tree-"));
// GNU rm walks with openat(), so it cleans up even what a failing removeTree left (once unmounted).
afterAll(async () => {
  await unmountUnder(scratch);
  execFileSync("rm", ["-rf", scratch]);
});
let counter = 0;
const freshDir = (): string => {
  const dir = path.join(scratch, `runtime-${++counter}`);
  mkdirSync(dir);
  return dir;
};

function runtimeLeaving(script: string, runtimeDir: string, keepRuns: boolean) {
  const { logger, lines } = capturingLogger();
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger, staging: { runtimeDir, keepRuns } },
    run: () => ({
      args: ["sh", "-c", script],
      stdin: "",
      outcome: async (stdout) => ({ ok: true, text: (await collectStdout(stdout)).bytes.toString() }),
    }),
  });
  return { runtime, lines };
}

describe.each(Object.entries(TREES))("a Run whose agent leaves %s in out/", (_name, script) => {
  it("leaves nothing once run() returns, and a sweep finds nothing", async () => {
    const runtimeDir = freshDir();
    const { runtime, lines } = runtimeLeaving(script, runtimeDir, false);
    const outcome = await runtime.run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { text: "left\n" } });
    expect(lines.filter((line) => line.includes("could not be removed"))).toEqual([]);
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect((await runtime.sweep()).removedRunDirectories).toEqual([]);
  });

  it("is removed by a later sweep when it was kept", async () => {
    const runtimeDir = freshDir();
    const outcome = await runtimeLeaving(script, runtimeDir, true).runtime.run({ text: "" });
    expect(outcome.result?.text).toBe("left\n");
    expect(readdirSync(runtimeDir)).toEqual([outcome.runId]);
    const { runtime, lines } = runtimeLeaving("true", runtimeDir, false);
    const swept = await runtime.sweep();
    expect(lines.filter((line) => line.includes("could not remove"))).toEqual([]);
    expect(swept.removedRunDirectories).toEqual([outcome.runId]);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});

/** The child: the built library as a user's process would run it, reporting what was left when. */
const CHILD = `
import { readdir } from "node:fs/promises";
import { pino } from "pino";
const [libraryUrl, runtimeDir, image, script] = process.argv.slice(1);
const { createAgentContainerRuntime } = await import(libraryUrl);
const logger = pino({ level: "warn" }, pino.destination(2));
const runtimeLeaving = (keepRuns) => createAgentContainerRuntime({
  container: { image, logger, staging: { runtimeDir, keepRuns } },
  run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: async (stdout) => {
    let text = "";
    for await (const chunk of stdout) text += Buffer.from(chunk).toString();
    return { ok: true, text };
  } }),
});
const removed = await runtimeLeaving(false).run({ text: "" });
const afterRun = await readdir(runtimeDir);
const kept = await runtimeLeaving(true).run({ text: "" });
const afterKeptRun = await readdir(runtimeDir);
const swept = await runtimeLeaving(false).sweep();
const afterSweep = await readdir(runtimeDir);
const texts = [removed.result?.text, kept.result?.text];
process.stdout.write(JSON.stringify({ texts, afterRun, keptRunId: kept.runId, afterKeptRun, swept: swept.removedRunDirectories, afterSweep }));
`;

type ChildReport = {
  readonly texts: string[];
  readonly afterRun: string[];
  readonly keptRunId: string;
  readonly afterKeptRun: string[];
  readonly swept: string[];
  readonly afterSweep: string[];
};

/** Runs CHILD as NON_ROOT_UID, in the docker socket's group so it may reach the engine. */
function runAsNonRoot(runtimeDir: string, script: string): Promise<{ report: ChildReport; stderr: string }> {
  const engineGid = statSync("/var/run/docker.sock").gid;
  const library = pathToFileURL(path.join(REPO, "dist/index.js")).href;
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD, library, runtimeDir, TEST_IMAGE, script], {
    cwd: REPO,
    uid: NON_ROOT_UID,
    gid: engineGid,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: runtimeDir },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the child exited ${code}: ${stderr}`));
      else resolve({ report: JSON.parse(stdout) as ChildReport, stderr });
    });
  });
}

describe.runIf(asRoot)("as a non-root orchestrator whose agent runs as its own uid", () => {
  beforeAll(() => {
    // The child runs the built library (test/support/build-once.ts), as a user's process would.
    // Its Staging Directory is its own, below a scratch directory it may enter.
    execFileSync("chmod", ["0755", scratch]);
  }, 120_000);

  it.each(Object.entries(TREES))(
    "removes a Run directory whose agent left %s, after the Run and at a sweep",
    async (_name, script) => {
      const runtimeDir = freshDir();
      chownSync(runtimeDir, NON_ROOT_UID, NON_ROOT_UID);
      const { report, stderr } = await runAsNonRoot(runtimeDir, script);
      expect(report.texts).toEqual(["left\n", "left\n"]);
      expect(stderr.split("\n").filter((line) => line.includes("could not"))).toEqual([]);
      expect(report.afterRun).toEqual([]);
      expect(report.afterKeptRun).toEqual([report.keptRunId]);
      expect(report.swept).toEqual([report.keptRunId]);
      expect(report.afterSweep).toEqual([]);
    },
    120_000,
  );
});
