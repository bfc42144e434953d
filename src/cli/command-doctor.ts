// `agentcage doctor`: its options and help. Invariant: the checks themselves live in doctor.ts,
// loaded only when the command runs, so declaring it costs the program nothing.

import type { Command } from "commander";
import { AGENT_IMAGE } from "../runner/index.js";
import { absoluteDirectory, defaultRuntimeDir } from "./options.js";
import type { ProgramIo } from "./io.js";
import { wantsLiveView } from "./view.js";

export function addDoctorCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  program
    .command("doctor")
    .description("check that this machine can run agents, with the fix beside each warning and failure")
    .option(
      "--runtime-dir <dir>",
      "the runtime directory to check (its staging/ must be bound by the engine as this process sees it)",
      absoluteDirectory("--runtime-dir"),
      defaultRuntimeDir(io.env),
    )
    .option("--image <image>", "the agent image", io.env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .option("--json", "the checks as one JSON array")
    .addHelpText("after", "\nExit status: 0 nothing failed (warnings allowed), 1 a check failed, 2 wrong arguments.")
    .action(async (flags: { runtimeDir: string; image: string; json?: boolean }) => {
      const { doctor } = await import("./doctor.js");
      settle(
        await doctor({
          runtimeDir: flags.runtimeDir,
          image: flags.image,
          stream: io.stdout,
          color: wantsLiveView(io.stdout, io.env),
          json: flags.json === true,
          environment: io.env,
        }),
      );
    });
}
