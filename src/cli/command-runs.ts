// `agentcage runs ls | show ID | logs ID`: the service's Run records, read from its runtime
// directory, or with --remote (or AGENTCAGE_URL) through its API as keys, tenants and audit are.
// Invariant: every one of the three takes the same --remote and --runtime-dir, defaulted as `serve`'s.

import type { Command } from "commander";
import { absoluteDirectory, collect, defaultRuntimeDir } from "./options.js";
import type { ProgramIo } from "./io.js";

type Where = { runtimeDir: string; remote?: string };

export function addRunsCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  const runs = program.command("runs").description("the service's Run records: ls, show ID, logs ID");
  const recordsOption = (command: Command) =>
    command
      .option(
        "--remote <url>",
        "read them through the service at this address (AGENTCAGE_URL), its token from AGENTCAGE_TOKEN or AGENTCAGE_TOKEN_FILE; default: from --runtime-dir",
      )
      .option(
        "--runtime-dir <dir>",
        "the service's runtime directory (with --remote, on loopback with no AGENTCAGE_TOKEN: where its serve wrote service/token)",
        absoluteDirectory("--runtime-dir"),
        defaultRuntimeDir(io.env),
      );
  /** The service to ask, when one is named; else the records are read from disk. */
  const remoteOf = (flags: Where) => {
    const remote = flags.remote ?? (io.env["AGENTCAGE_URL"] || undefined);
    return remote === undefined ? undefined : { remote, runtimeDir: flags.runtimeDir };
  };
  recordsOption(runs.command("ls").description("list Runs, newest first"))
    .option("--state <state>", "only Runs in this state")
    .option("--label <key=value>", "only Runs with this label (repeatable)", collect)
    .option("--json", "as JSON")
    .action(async (flags: Where & { state?: string; label?: string[]; json?: boolean }) => {
      const service = remoteOf(flags);
      if (service === undefined) {
        const { listRuns } = await import("./runs.js");
        return settle(await listRuns(flags, io));
      }
      const { listRemoteRuns } = await import("./runs-remote.js");
      settle(await listRemoteRuns({ ...flags, ...service }, io));
    });
  recordsOption(runs.command("show").description("one Run: its request, state and Outcome").argument("<id>", "the Run's id")).action(
    async (id: string, flags: Where) => {
      const service = remoteOf(flags);
      if (service === undefined) {
        const { showRun } = await import("./runs.js");
        return settle(await showRun(id, flags, io));
      }
      const { showRemoteRun } = await import("./runs-remote.js");
      settle(await showRemoteRun(id, service, io));
    },
  );
  recordsOption(
    runs
      .command("logs")
      .description("one Run's events, as they were recorded (with --remote, one still going is followed to its end)")
      .argument("<id>", "the Run's id"),
  )
    .option("--json", "one JSON event a line")
    .action(async (id: string, flags: Where & { json?: boolean }) => {
      const service = remoteOf(flags);
      if (service === undefined) {
        const { runLogs } = await import("./runs.js");
        return settle(await runLogs(id, flags, io));
      }
      const { remoteRunLogs } = await import("./runs-remote.js");
      settle(await remoteRunLogs(id, { ...flags, ...service }, io));
    });
}
