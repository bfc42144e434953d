// `agentcage run` while what its Run needs starts (the stand-in model, the egress proxy with the
// stand-in behind it), as a person runs it: a subprocess, its containers caught by the engine's
// events at their start by the command's own pid label. Slow is not dead: a stand-in held paused
// longer than the 20 s the start was once bounded by is waited for, and the Run completes; one
// killed at its start is unavailable (exit 3) within seconds, naming it; a Ctrl-C meanwhile is a
// cancel (exit 130). Whatever happens, no container of the command is left.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commandEnv, MAIN, startCommand } from "../../test/support/command.js";
import { atStart, containersWithLabel, pausedFor, unpause } from "../../test/support/at-start.js";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";
import { EXIT } from "./exit-codes.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-cli-start-"));
const env = commandEnv({ AGENTCAGE_RUNTIME_DIR: join(root, "rt") });
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Longer than the 20 s the start was once bounded by. */
const PAUSE_MS = 25_000;
const STAND_IN = ["--stand-in"];
const BEHIND_THE_PROXY = ["--stand-in", "--network-policy", "model"];
const BOTH = [
  { what: "the stand-in", flags: STAND_IN },
  { what: "the proxy with the stand-in behind it", flags: BEHIND_THE_PROXY },
];

/** The containers a command with this pid made, running or not (its Runs', its stand-in's, its proxy's). */
const containersOf = (pid: number): Promise<string[]> => containersWithLabel(`agentcage.pid=${pid}`);

/** The first container the command with this pid starts for the Run (the stand-in's, or the proxy's), caught at its start. */
function itsStart(pid: number, flags: readonly string[], act: "pause" | "kill" | "none") {
  const owner = flags.includes("--network-policy") ? "agentcage-egress" : "agentcage-stand-in";
  return atStart({ label: [`agentcage.pid=${pid}`, `agentcage.owner=${owner}`] }, act);
}

/** The pid of the one process `parent` started, once it has (script(1)'s shell, which execs the command). */
async function childOf(parent: number): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const children = readFileSync(`/proc/${parent}/task/${parent}/children`, "utf8").trim();
    if (children !== "") return Number(children.split(" ")[0]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${parent} started no child within 10 s`);
}

describe("agentcage run while the stand-in starts", () => {
  it("waits out a pause of the stand-in's container longer than 20 s, saying it runs, and completes the Run", async () => {
    const command = startCommand(["run", "claude", "What is the capital of France?", ...STAND_IN], env);
    const pid = command.child.pid as number;
    const paused = await itsStart(pid, STAND_IN, "pause").caught;
    await pausedFor(PAUSE_MS, command.finished);
    await unpause(paused);
    const done = await command.finished;
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(done.stdout).toBe(`${PLAIN_ANSWER}\n`);
    expect(done.stderr).toContain("starting the stand-in model: its container runs; waiting for it to listen");
    expect(await containersOf(pid)).toEqual([]);
  }, 180_000);

  it.each(BOTH)(
    "exits unavailable within seconds when $what is killed at its start, naming it",
    async ({ flags }) => {
      const command = startCommand(["run", "claude", "What is the capital of France?", ...flags], env);
      const pid = command.child.pid as number;
      await itsStart(pid, flags, "kill").caught;
      const killedAt = performance.now();
      const done = await command.finished;
      expect(performance.now() - killedAt).toBeLessThan(15_000);
      expect(done.code, done.stderr).toBe(EXIT.unavailable);
      expect(done.stderr).toMatch(
        flags.includes("--network-policy") ? /the egress proxy, with the stand-in model behind it, exited/ : /the stand-in model exited/,
      );
      expect(done.stdout).toBe("");
      expect(await containersOf(pid)).toEqual([]);
    },
    120_000,
  );

  it.each(BOTH)(
    "is cancelled by a Ctrl-C as soon as the container of $what appears, leaving nothing",
    async ({ flags }) => {
      const command = startCommand(["run", "claude", "What is the capital of France?", ...flags], env);
      const pid = command.child.pid as number;
      await itsStart(pid, flags, "none").caught;
      command.child.kill("SIGINT");
      const done = await command.finished;
      expect(done.code, done.stderr).toBe(EXIT.cancelled);
      expect(done.stderr).toContain("cancelled");
      expect(await containersOf(pid)).toEqual([]);
    },
    120_000,
  );

  it("says on a terminal, with the time so far, that the stand-in's container runs while it waits for it", async () => {
    // script(1) gives the command a pseudo-terminal of a size; its shell execs the command, which keeps the shell's pid.
    const line = ["stty cols 160 rows 30;", "exec", process.execPath, MAIN, "run", "claude", "'What is the capital of France?'", "--stand-in"].join(" ");
    const command = startCommand(["-qfec", line, "/dev/null"], { ...env, TERM: "xterm-256color", COLUMNS: "160" }, "script", []);
    const pid = await childOf(command.child.pid as number);
    const paused = await itsStart(pid, STAND_IN, "pause").caught;
    await pausedFor(8_000, command.finished);
    await unpause(paused);
    const done = await command.finished;
    expect(done.code, done.stdout).toBe(EXIT.completed);
    const text = done.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    // The live view's line: the step, that its container runs, and the time so far, redrawn each second.
    expect(text).toMatch(/starting the stand-in model: its container runs; waiting for it to listen · \d+(\.\d)? s/);
    expect(text).toContain(PLAIN_ANSWER);
    expect(await containersOf(pid)).toEqual([]);
  }, 120_000);
});
