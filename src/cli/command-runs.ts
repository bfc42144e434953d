// `agentcage runs ls | show ID | logs ID`: the service's Run records, read from its runtime
// directory. Invariant: every one of the three takes the same --runtime-dir, defaulted as `serve`'s.

import type { Command } from "commander";
import { absoluteDirectory, collect, defaultRuntimeDir } from "./options.js";
import type { ProgramIo } from "./io.js";

export function addRunsCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  const runs = program.command("runs").description("the service's Run records: ls, show ID, logs ID");
  const recordsOption = (command: Command) =>
    command.option("--runtime-dir <dir>", "the service's runtime directory", absoluteDirectory("--runtime-dir"), defaultRuntimeDir(io.env));
  recordsOption(runs.command("ls").description("list Runs, newest first"))
    .option("--state <state>", "only Runs in this state")
    .option("--label <key=value>", "only Runs with this label (repeatable)", collect)
    .option("--json", "as JSON")
    .action(async (flags: { runtimeDir: string; state?: string; label?: string[]; json?: boolean }) => {
      const { listRuns } = await import("./runs.js");
      settle(await listRuns(flags, io));
    });
  recordsOption(runs.command("show").description("one Run: its request, state and Outcome").argument("<id>", "the Run's id")).action(
    async (id: string, flags: { runtimeDir: string }) => {
      const { showRun } = await import("./runs.js");
      settle(await showRun(id, flags, io));
    },
  );
  recordsOption(runs.command("logs").description("one Run's events, as they were recorded").argument("<id>", "the Run's id"))
    .option("--json", "one JSON event a line")
    .action(async (id: string, flags: { runtimeDir: string; json?: boolean }) => {
      const { runLogs } = await import("./runs.js");
      settle(await runLogs(id, flags, io));
    });
}
