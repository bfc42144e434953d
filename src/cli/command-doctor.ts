// `agentcage doctor`: its options and help. Invariant: the checks themselves live in doctor.ts,
// loaded only when the command runs, so declaring it costs the program nothing.

import { type Command, Option } from "commander";
import { AGENT_IMAGE } from "../runner/index.js";
import { absoluteDirectory, defaultRuntimeDir, engineFlag, UsageError } from "./options.js";
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
    .addOption(
      new Option(
        "--engine <address>",
        "an engine to check, as serve takes it (repeatable; the variable takes a space-separated list); default the one local engine",
      )
        .argParser(engineFlag)
        .env("AGENTCAGE_ENGINES"),
    )
    .option("--kubernetes <namespace>", "check the cluster the kubeconfig names and this namespace (as serve --kubernetes takes it) instead of an engine")
    .option(
      "--remote <url>",
      "also ask the agentcage service there what makes it less than it says (default AGENTCAGE_URL; its token from AGENTCAGE_TOKEN, AGENTCAGE_TOKEN_FILE, or on loopback <runtime-dir>/service/token)",
      io.env["AGENTCAGE_URL"] || undefined,
    )
    .addHelpText("after", "\nExit status: 0 nothing failed (warnings allowed), 1 a check failed, 2 wrong arguments.")
    .action(async (flags: { runtimeDir: string; image: string; json?: boolean; engine?: string[]; kubernetes?: string; remote?: string }) => {
      const { doctor, doctorEngines } = await import("./doctor.js");
      const engines = flags.engine === undefined || flags.engine.length === 0 ? {} : { engines: doctorEngines(flags.engine) };
      if (flags.kubernetes !== undefined && flags.engine !== undefined && flags.engine.length > 0)
        throw new UsageError("--engine and --kubernetes check two places a Run can go; give one of them");
      const kubernetes = flags.kubernetes === undefined ? {} : { kubernetes: await (await import("./kube-config.js")).kubernetesBackend(flags.kubernetes) };
      const { remote, runtimeDir } = flags;
      const service = remote === undefined ? {} : { service: async () => (await import("./doctor-service.js")).askServiceState(remote, runtimeDir, io.env) };
      settle(
        await doctor({
          runtimeDir: flags.runtimeDir,
          image: flags.image,
          stream: io.stdout,
          color: wantsLiveView(io.stdout, io.env),
          json: flags.json === true,
          environment: io.env,
          ...engines,
          ...kubernetes,
          ...service,
        }),
      );
    });
}
