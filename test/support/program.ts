// `agentcage` asked in this process, as the unit tests of its flags ask it: a quiet io (no colour,
// no live view, no stdin) over the environment given, and process.env set for the ask alone (the
// runner reads credentials there), put back after whatever happened.

import type { ProgramIo } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/program.js";
import type { ViewStream } from "../../src/cli/view.js";
import { textStream } from "./text-stream.js";

export type Asked = {
  /** What the program settled with; -1 when it never settled. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** What parsing or the action threw (a usage error, an exit), when it threw. */
  readonly thrown?: unknown;
};

/** Runs `agentcage <words...>`; `env` is the program's own, `processEnv` set on process.env meanwhile. */
export async function askProgram(
  words: readonly string[],
  env: Readonly<Record<string, string>>,
  processEnv: Readonly<Record<string, string>> = {},
): Promise<Asked> {
  const [stdout, stderr] = [textStream<ViewStream>(), textStream<ViewStream>()];
  const saved = Object.keys(processEnv).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, processEnv);
  const io: ProgramIo = {
    stdout,
    stderr,
    env: { NO_COLOR: "1", ...env },
    live: false,
    onInterrupt: () => () => undefined,
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
    readStdin: async () => "",
  };
  let code = -1;
  let thrown: unknown;
  try {
    await buildProgram(io, (c) => (code = c)).parseAsync(["node", "agentcage", ...words]);
  } catch (error) {
    thrown = error;
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return { code, stdout: stdout.text, stderr: stderr.text, ...(thrown === undefined ? {} : { thrown }) };
}
