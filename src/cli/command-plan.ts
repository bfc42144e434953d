// `agentcage plan`: the same words as `run`, answered with the one `docker run` of that Run, starting
// nothing. Invariant: what plan prints is what a Run with no network made for it would run, so a
// policy that makes a network (and an egress proxy) is refused rather than left out of the words.

import type { Command } from "commander";
import { checkBudgetFlags, checkedRun, runOptions, warnOfReach, type RunFlags } from "./command-flags.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";

export function addPlanCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  runOptions(program.command("plan").description("print the docker run command for the same arguments, starting nothing"), io.env).action(
    async (cli: string, rawPrompt: string, flags: RunFlags) => {
      const checked = await checkedRun(cli, rawPrompt, flags, io);
      if (flags.networkPolicy !== undefined && flags.networkPolicy !== "none") {
        throw new UsageError(
          `--network-policy ${flags.networkPolicy} makes a network for the Run${flags.networkPolicy === "open" ? "" : " and starts the egress proxy"}, which plan does not; plan prints the one docker run of a Run with no network (leave --network-policy out)`,
        );
      }
      checkBudgetFlags(checked, flags);
      warnOfReach(flags, io);
      const { plan } = await import("./plan.js");
      settle(
        await plan(
          {
            ...checked,
            image: flags.image,
            runtimeDir: flags.runtimeDir,
            networks: flags.network ?? [],
            standIn: flags.standIn === true,
            ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
          },
          io,
        ),
      );
    },
  );
}
