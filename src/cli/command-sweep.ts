// `agentcage sweep`: its options. Invariant: it reads the same --session-retention-days (and
// variable) as `run` and `serve`, so a sweep by hand removes no session they would keep.

import type { Command } from "commander";
import { AGENT_IMAGE } from "../runner/index.js";
import { sessionRetentionOption } from "./command-flags.js";
import { absoluteDirectory, defaultRuntimeDir, unlessEmpty } from "./options.js";
import type { ProgramIo } from "./io.js";

export function addSweepCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  program
    .command("sweep")
    .description("remove what crashed agentcage processes left: their containers and Run directories")
    .option("--runtime-dir <dir>", "the Staging Directory's parent", absoluteDirectory("--runtime-dir"), defaultRuntimeDir(io.env))
    .option("--image <image>", "the agent image", io.env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .addOption(sessionRetentionOption())
    .option("--verbose", "the library's log lines on stderr")
    .action(async (flags: { runtimeDir: string; image: string; sessionRetentionDays?: number | ""; verbose?: boolean }) => {
      const { sweep } = await import("./sweep.js");
      const retention = unlessEmpty(flags.sessionRetentionDays);
      settle(
        await sweep(
          {
            runtimeDir: flags.runtimeDir,
            image: flags.image,
            verbose: flags.verbose === true,
            ...(retention === undefined ? {} : { sessionRetentionDays: retention }),
          },
          io,
        ),
      );
    });
}
