// `agentcage plan`: the `docker run` command the same arguments would run, shell-quoted so it can
// be pasted (shell-quote); credentials by name only (`--env NAME`), never their values.

import { join } from "node:path";
import { quote } from "shell-quote";
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
    io.stdout.write(`${quote([command.command, ...command.redactedArgs])}\n`);
    if (standIn !== undefined) io.stderr.write(`# ${STAND_IN_PLACEHOLDER} stands for the stand-in model's container (${STAND_IN_IMAGE}), started first\n`);
    if (options.inputs !== undefined || options.out !== undefined) {
      io.stderr.write("# a Run stages --in and harvests --out through its own Run directory; this command shows the container alone\n");
    }
    io.stderr.write("# the prompt goes to the container's stdin; each --env NAME takes its value from your environment\n");
    const names = CREDENTIAL_VARIABLES[options.request.cli].map(([name]) => name);
    if (!options.standIn && names.every((name) => (process.env[name] ?? "") === "")) {
      io.stderr.write(`# no credential is set here: set ${names.join(" or ")} before you run these words\n`);
    }
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(`agentcage plan: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.unavailable;
  }
}
