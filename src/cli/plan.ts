// `agentcage plan`: the `docker run` command the same arguments would run, after the `mkdir` of the
// directories it binds, quoted only where a shell needs it, so it runs as pasted; credentials by
// name only (`--env NAME`), never their values. Invariant: plan itself writes nothing and starts nothing.

import { join } from "node:path";
import { createAgentRunner } from "../runner/index.js";
import { CREDENTIAL_VARIABLES } from "../agents/index.js";
import { standInRunnerOptions, STAND_IN_IMAGE, STAND_IN_PORT } from "../stand-in/index.js";
import { EXIT } from "./exit-codes.js";
import type { CheckedRun } from "./run-args.js";
import type { CommandIo } from "./io.js";

const STAND_IN_PLACEHOLDER = "agentcage-stand-in";

export type PlanOptions = CheckedRun & {
  readonly image: string;
  readonly runtimeDir: string;
  readonly networks: readonly string[];
  readonly standIn: boolean;
  readonly containerRuntime?: string;
};

export async function plan(options: PlanOptions, io: CommandIo): Promise<number> {
  // With --stand-in the agent joins the stand-in's container, whose name is made when it starts:
  // the plan writes a placeholder name for it; nothing is started.
  const standIn = options.standIn ? { network: `container:${STAND_IN_PLACEHOLDER}`, baseUrl: `http://127.0.0.1:${STAND_IN_PORT}` } : undefined;
  const base = {
    image: options.image,
    staging: { runtimeDir: join(options.runtimeDir, "staging"), ...(options.writable ? { writableWork: true } : {}) },
    ...(options.networks.length === 0 ? {} : { networks: options.networks }),
    ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
  };
  const runner = createAgentRunner(standIn === undefined ? base : { ...base, ...standInRunnerOptions(standIn) });
  try {
    const command = await runner.commandFor(options.request, options.prompt);
    const made = bindSources(command.redactedArgs).map(({ source, writable }) => shellWords(["mkdir", "-p", "-m", writable ? "777" : "755", source]));
    if (made.length > 0) io.stdout.write(`${made.join(" && ")}\n`);
    io.stdout.write(`${shellWords([command.command, ...command.redactedArgs])}\n`);
    if (standIn !== undefined) io.stderr.write(`# ${STAND_IN_PLACEHOLDER} stands for the stand-in model's container (${STAND_IN_IMAGE}), started first\n`);
    if (options.inputs !== undefined || options.out !== undefined) {
      io.stderr.write("# a Run stages --in and harvests --out through its own Run directory; this command shows the container alone\n");
    }
    if (made.length > 0) io.stderr.write("# the mkdir makes the directories the container binds (mode 777 where the agent, another uid, writes)\n");
    io.stderr.write("# the prompt goes to the container's stdin; each --env NAME takes its value from your environment\n");
    const names = CREDENTIAL_VARIABLES[options.request.cli].map(([name]) => name);
    const unset = (name: string) => (process.env[name] ?? "") === "";
    if (standIn !== undefined) {
      const key = names.find((name) => name in command.env);
      if (key !== undefined && unset(key))
        io.stderr.write(`# the stand-in model takes any key: set ${key} to any value (export ${key}=stand-in) before you run these words\n`);
    } else if (names.every(unset)) {
      io.stderr.write(`# no credential is set here: set ${names.join(" or ")} before you run these words\n`);
    }
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(`agentcage plan: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.unavailable;
  }
}

/**
 * The host directories the words bind (`--mount type=bind,source=...`), parents first, and whether
 * the agent writes there. A plan's Run binds directories only: its work/ and out/ (no session store,
 * no login file: plan keeps no session and reads credentials from the environment alone).
 */
function bindSources(args: readonly string[]): Array<{ source: string; writable: boolean }> {
  const binds = args.flatMap((arg, i) => {
    if (args[i - 1] !== "--mount") return [];
    const fields = new Map(arg.split(",").map((field) => [field.split("=")[0] ?? "", field.slice(field.indexOf("=") + 1)] as const));
    const source = fields.get("source");
    return fields.get("type") === "bind" && source !== undefined ? [{ source, writable: !fields.has("readonly") }] : [];
  });
  return binds.sort((a, b) => a.source.length - b.source.length);
}

/** Words a POSIX shell reads back as they are: bare where no character is special to it, else in single quotes. */
export function shellWords(words: readonly string[]): string {
  return words.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(" ");
}
