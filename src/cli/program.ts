// The `agentcage` command line (commander 14): the program's name, version and output, and which
// subcommands it has, in the order its help lists them. Each subcommand's words live in its
// command-*.ts; nothing here runs a container, and no command loads what only another one needs.

import { Command } from "commander";
import { agentcageVersion } from "../runner/index.js";
import { addAuditCommand } from "./command-audit.js";
import { addDoctorCommand } from "./command-doctor.js";
import { addImageCommand } from "./command-image.js";
import { addKeysCommand } from "./command-keys.js";
import { addMcpCommand } from "./command-mcp.js";
import { addPlanCommand } from "./command-plan.js";
import { addRunCommand } from "./command-run.js";
import { addRunsCommand } from "./command-runs.js";
import { addServeCommand } from "./command-serve.js";
import { addSweepCommand } from "./command-sweep.js";
import { addTenantsCommand } from "./command-tenants.js";
import type { ProgramIo } from "./io.js";

/** The program; `settle` receives each action's exit status. */
export function buildProgram(io: ProgramIo, settle: (code: number) => void): Command {
  const program = new Command("agentcage")
    .description("Run AI coding-agent CLIs in one fresh, locked-down container per Run.")
    .version(agentcageVersion(), "--version", "print agentcage's version")
    .showHelpAfterError("(add --help to the command for its usage)")
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();
  const commands = [
    addRunCommand,
    addPlanCommand,
    addServeCommand,
    addMcpCommand,
    addDoctorCommand,
    addSweepCommand,
    addRunsCommand,
    addKeysCommand,
    addTenantsCommand,
    addAuditCommand,
    addImageCommand,
  ];
  for (const add of commands) {
    add(program, io, settle);
  }
  return program;
}
