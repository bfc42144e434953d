// The Harvest's Outcome does not depend on who runs the orchestrator, against the real engine: the
// same agent leaves the same out/ (or writable work/) for a root orchestrator (a tmpfs on this disk,
// harvested as it lies) and for a non-root one (a child process running the built library as
// NON_ROOT_UID, a volume copied back through the engine's archive), and both Runs end alike,
// refusal and entry. What decides is the mode the agent left, never the orchestrator's uid.

import { execFileSync, spawn } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun } from "../../../test/support/engine.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const NON_ROOT_UID = 1500;
const asRoot = process.getuid?.() === 0;

/** What the agent leaves in out/, and how the Run ends: its reason, and the refusal's reason and entry. */
const LEFT: ReadonlyArray<readonly [string, string, { reason: string; refusal?: { reason: string; entry: string } }]> = [
  ["files it may harvest", "mkdir out/d && echo a > out/d/a.txt && echo b > out/b.txt", { reason: "completed" }],
  [
    "a directory its owner can neither list nor enter",
    "mkdir out/locked && echo a > out/locked/a.txt && chmod 000 out/locked",
    { reason: "harvest_refused", refusal: { reason: "unreadable", entry: '"locked"' } },
  ],
  [
    "a directory its owner can enter but not list",
    "mkdir out/blind && echo a > out/blind/a.txt && chmod 100 out/blind",
    { reason: "harvest_refused", refusal: { reason: "unreadable", entry: '"blind"' } },
  ],
  ["its out/ itself unreadable", "echo a > out/a.txt && chmod 000 out", { reason: "harvest_refused", refusal: { reason: "unreadable", entry: '"."' } }],
  [
    "a file its owner cannot read",
    "echo a > out/a.txt && chmod 000 out/a.txt",
    { reason: "harvest_refused", refusal: { reason: "unreadable", entry: '"a.txt"' } },
  ],
];

/** What the agent leaves in a writable work/ (its inputs a.txt), and how the Run ends. */
const LEFT_IN_WORK: ReadonlyArray<readonly [string, string, { reason: string; refusal?: { reason: string; entry: string } }]> = [
  [
    "a directory its owner cannot read among its changes, which the change set takes",
    "mkdir locked && echo a > locked/a.txt && chmod 000 locked",
    { reason: "completed" },
  ],
  [
    "a directory its owner cannot read in its out/, which the Harvest refuses",
    "mkdir out/locked && echo a > out/locked/a.txt && chmod 000 out/locked",
    { reason: "harvest_refused", refusal: { reason: "unreadable", entry: '"out/locked"' } },
  ],
];

type Ended = {
  readonly ok: boolean;
  readonly reason: string;
  readonly refusal?: { readonly reason: string; readonly entry: string };
  readonly changes?: unknown;
};

const scratch = mkdtempSync(path.join(tmpdir(), "agentcage-harvest-uid-"));
// GNU rm walks with openat(), so a mode-000 directory a failed Harvest left cannot stop it.
afterAll(() => execFileSync("rm", ["-rf", scratch]));
let made = 0;
/** A directory of NON_ROOT_UID's own, where the child keeps its Staging Directory and its Harvest. */
const freshDir = (): string => {
  const dir = path.join(scratch, `dir-${++made}`);
  mkdirSync(dir);
  chownSync(dir, NON_ROOT_UID, NON_ROOT_UID);
  return dir;
};

const endOf = (outcome: { ok: boolean; reason: string; harvest?: unknown }): Ended => {
  const harvest = outcome.harvest as { ok: boolean; refusal?: { reason: string; entry: string }; changes?: unknown } | undefined;
  const refusal = harvest?.refusal;
  return {
    ok: outcome.ok,
    reason: outcome.reason,
    ...(refusal === undefined ? {} : { refusal: { reason: refusal.reason, entry: refusal.entry } }),
    ...(harvest?.changes === undefined ? {} : { changes: harvest.changes }),
  };
};

/** With `writable`, inputs of one file (a.txt) in `dir`, which the Run edits a copy of. */
function inputsIn(dir: string, writable: boolean) {
  if (!writable) return {};
  mkdirSync(path.join(dir, "inputs"));
  writeFileSync(path.join(dir, "inputs", "a.txt"), "one\n");
  return { inputs: { directory: path.join(dir, "inputs") } };
}

/** The Run in this process, as root. */
async function asThisProcess(script: string, writable = false): Promise<Ended> {
  const dir = freshDir();
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir: path.join(dir, "runs"), writableWork: writable } },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: collectStdout }),
  });
  const outcome = await runtime.run({ text: "" }, { harvestTo: path.join(dir, "harvest"), ...inputsIn(dir, writable) });
  expect(containersOfRun(outcome.runId)).toEqual([]);
  return endOf(outcome);
}

/**
 * The child: the built library as a non-root user's process runs it, printing how its Run ended. A
 * file, not \`node -e\`: --input-type=module would reach the Harvest's worker threads, whose programs are CommonJS.
 */
const CHILD = `
import { pino } from "pino";
const [libraryUrl, dir, image, script, writable] = process.argv.slice(2);
const { createAgentContainerRuntime } = await import(libraryUrl);
const runtime = createAgentContainerRuntime({
  container: { image, logger: pino({ level: "warn" }, pino.destination(2)), staging: { runtimeDir: dir + "/runs", writableWork: writable === "writable" } },
  run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: async (stdout) => {
    for await (const _chunk of stdout) {}
    return { ok: true };
  } }),
});
const inputs = writable === "writable" ? { inputs: { directory: dir + "/inputs" } } : {};
const outcome = await runtime.run({ text: "" }, { harvestTo: dir + "/harvest", ...inputs });
process.stdout.write(JSON.stringify(outcome));
`;

/** The Run in a child process as NON_ROOT_UID, in the docker socket's group so it may reach the engine. */
function asNonRoot(script: string, writable = false): Promise<Ended> {
  const library = pathToFileURL(path.join(REPO, "dist/index.js")).href;
  const dir = freshDir();
  inputsIn(dir, writable);
  const child = spawn(process.execPath, [childFile, library, dir, TEST_IMAGE, script, writable ? "writable" : "out"], {
    cwd: REPO,
    uid: NON_ROOT_UID,
    gid: statSync("/var/run/docker.sock").gid,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the child exited ${code}: ${stderr}`));
      else resolve(endOf(JSON.parse(stdout) as { ok: boolean; reason: string; harvest?: unknown }));
    });
  });
}

/** Below the repository's node_modules (ignored by git), so the child resolves pino as the library does. */
const childFile = path.join(REPO, "node_modules", ".cache", "agentcage-tests", `harvest-uid-child-${process.pid}.mjs`);

describe.runIf(asRoot)("a Harvest whoever runs the orchestrator", () => {
  beforeAll(() => {
    execFileSync("chmod", ["0755", scratch]);
    mkdirSync(path.dirname(childFile), { recursive: true, mode: 0o755 });
    writeFileSync(childFile, CHILD, { mode: 0o644 });
  });
  afterAll(() => rmSync(childFile, { force: true }));

  it.each(LEFT)(
    "ends alike as root and as a non-root uid when the agent leaves %s",
    async (_what, script, expected) => {
      const root = await asThisProcess(script);
      const nonRoot = await asNonRoot(script);
      expect(root).toEqual({ ok: expected.reason === "completed", ...expected });
      expect(nonRoot).toEqual(root);
    },
    120_000,
  );

  it.each(LEFT_IN_WORK)(
    "ends alike as root and as a non-root uid when the agent of a writable work/ leaves %s",
    async (_what, script, expected) => {
      const root = await asThisProcess(script, true);
      const nonRoot = await asNonRoot(script, true);
      expect(root).toMatchObject({ ok: expected.reason === "completed", ...expected });
      expect(nonRoot).toEqual(root);
    },
    120_000,
  );
});
