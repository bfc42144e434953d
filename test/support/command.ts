// Runs the built `agentcage` command as a subprocess, the way a person or a script runs it:
// compiled once before the engine tests (build-once.ts), then spawned with its own environment;
// resolves with its exit status and everything it printed.

import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MAIN = join(REPO, "dist", "cli", "main.js");

export type Finished = { readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string };

export type Started = {
  readonly child: ChildProcess;
  readonly finished: Promise<Finished>;
  /** Resolves once stderr holds `text`. */
  readonly stderrHas: (text: string, timeoutMs?: number) => Promise<void>;
  /** What it has printed on stderr so far. */
  readonly stderrSoFar: () => string;
  /** What it has printed on stdout so far. */
  readonly stdoutSoFar: () => string;
};

/** The environment of a command run by a test: this process's, without CI and NO_COLOR unless given. */
export function commandEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { CI: _ci, NO_COLOR: _noColor, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** Every command a test file started: whatever is still running when the file ends is killed (a timed-out test must not leave one spinning). */
const started = new Set<ChildProcess>();
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

export function startCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv = commandEnv(),
  command = process.execPath,
  prefix: readonly string[] = [MAIN],
  /** What it reads on stdin; default nothing. */
  input = "",
): Started {
  const child = spawn(command, [...prefix, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  started.add(child);
  child.stdin?.end(input);
  let stdout = "";
  let stderr = "";
  const waiting = new Set<() => void>();
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const check of waiting) check();
  });
  const finished = new Promise<Finished>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  const stderrHas = (text: string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`stderr did not show ${JSON.stringify(text)} within ${timeoutMs} ms: ${stderr.slice(-2000)}`)),
        timeoutMs,
      );
      const check = () => {
        if (!stderr.includes(text)) return;
        clearTimeout(timer);
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  return { child, finished, stderrHas, stderrSoFar: () => stderr, stdoutSoFar: () => stdout };
}

/** Runs the command to its end. */
export function runCommand(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<Finished> {
  return startCommand(args, env).finished;
}
