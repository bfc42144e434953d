// `agentcage image build`: builds the package's own images. Invariant: its words are handed to the
// image builder (image.ts, loaded only when the command runs) as that builder's own arguments.

import type { Command } from "commander";
import type { ProgramIo } from "./io.js";

export function addImageCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  program
    .command("image")
    .description("agentcage's images")
    .command("build")
    .description("build agentcage's images (the agent's, the stand-in model's, the orchestrator's) from the installed package")
    .argument("[names...]", "agent, stand-in, orchestrator (default all three)")
    .option("--dry-run", "print each image's inputs; contact no engine")
    .action(async (names: string[], flags: { dryRun?: boolean }) => {
      const { buildImages } = await import("./image.js");
      settle(await buildImages([...(flags.dryRun === true ? ["--dry-run"] : []), ...names], io));
    });
}
