// `agentcage run`: its options, its help (where the key comes from, what --out receives, the exit
// statuses), and whether the Run goes to a service (--remote) or runs here. Invariant: an option
// only a local Run can honour is refused with --remote, never silently dropped.

import { type Command, Option } from "commander";
import { AGENT_CLIS, CREDENTIAL_VARIABLES, type AgentCli } from "../agents/index.js";
import { refusalsOf, type BackendAsk } from "../runtime/index.js";
import { checkBudgetFlags, checkedRun, runFilesOf, runOptions, sessionRetentionOption, warnOfReach, type RunFlags } from "./command-flags.js";
import { EXIT } from "./exit-codes.js";
import { UsageError, unlessEmpty, wholeNumber } from "./options.js";
import type { CheckedRun } from "./run-args.js";
import type { ProgramIo } from "./io.js";
import { traceHeadersOf, type TraceHeaders } from "../trace/index.js";

const EXIT_CODES_HELP = `
Exit status of run: ${EXIT.completed} completed, ${EXIT.failed} failed, ${EXIT.usage} wrong arguments or a refused request,
${EXIT.unavailable} unavailable (no engine, image, credential or service), ${EXIT.timeout} timed out,
${EXIT.lost} the service went silent (the Run may go on there), ${EXIT.budget} a budget cap was passed, ${EXIT.stalled} stalled,
${EXIT.cancelled} cancelled (Ctrl-C).`;

const keyNames = (cli: AgentCli): string => CREDENTIAL_VARIABLES[cli].map(([name]) => name).join(" or ");

const RUN_HELP = `
The key comes from this process's environment, never from the command line:
${AGENT_CLIS.map((cli, i) => `${cli}${i === 0 ? " takes" : ""} ${keyNames(cli)}`).join(",\n")} (\`agentcage doctor\` says which it finds).

The agent reads a copy of --in and can write only to its out/. --out receives that out/; with
--writable, the change set: files/ (what it added or changed in --in's copy), changes.patch (git
apply takes it on --in), changes.json, and the agent's out/ as out/ (never in the patch).
Without --out, stdout gets the answer (with --writable, the patch).
--exclude leaves a path of --in out (a glob on the path within it: node_modules is the top-level
one, "**/node_modules" every one); a checkout with its own out/ needs --exclude out.

Without a key, against the project's stand-in model:
  agentcage run claude "[stand-in:tool_write_bash] write out/answer.txt" --stand-in --out ./answer
${EXIT_CODES_HELP}`;

export function addRunCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  runOptions(program.command("run").description("run an agent once and show what it does"), io.env)
    .option("--json", "print the Outcome as JSON on stdout, and nothing else there")
    .option("--remote <url>", "run it on an agentcage service (token from AGENTCAGE_TOKEN)")
    .option(
      "--idle-timeout <seconds>",
      "with --remote: give up after this long without a word from the service",
      wholeNumber("--idle-timeout", 1, 24 * 3600),
      60,
    )
    .addOption(sessionRetentionOption())
    .addOption(
      new Option(
        "--run-files <where>",
        "how the Run's files reach the engine: disk (bind mounts; the engine shares this host's disk; default) or engine (through its archive; docs/engines.md)",
      ).argParser(runFilesOf),
    )
    .option(
      "--kubernetes <namespace>",
      "run it as a Pod in this namespace of the cluster the kubeconfig names (KUBECONFIG, ~/.kube/config, or in-cluster); not yet run against a live cluster (docs/kubernetes.md)",
    )
    .addHelpText("after", RUN_HELP)
    .action(async (cli: string, rawPrompt: string, flags: RunFlags, command: Command) => {
      const checked = await checkedRun(cli, rawPrompt, flags, io);
      if (flags.remote !== undefined) {
        refuseLocalOnlyOptions(flags, command);
        settle(await runOnService(checked, flags.remote, flags, io));
        return;
      }
      settle(await runHere(checked, flags, io));
    });
}

/** The service runs on its own settings: a local-only option given with --remote would be silently ignored. */
function refuseLocalOnlyOptions(flags: RunFlags, command: Command): void {
  const local = [
    flags.standIn === true ? "--stand-in" : undefined,
    flags.network === undefined ? undefined : "--network",
    flags.networkPolicy === undefined ? undefined : "--network-policy",
    flags.allow === undefined ? undefined : "--allow",
    flags.containerRuntime === undefined ? undefined : "--container-runtime",
    flags.runFiles === undefined ? undefined : "--run-files",
    flags.kubernetes === undefined ? undefined : "--kubernetes",
    // From AGENTCAGE_SESSION_RETENTION_DAYS (set for a local serve, say) it is not a choice made for this Run.
    command.getOptionValueSource("sessionRetentionDays") === "cli" ? "--session-retention-days" : undefined,
  ].filter((o) => o !== undefined);
  if (local.length > 0)
    throw new UsageError(
      `${local.join(", ")} ${local.length === 1 ? "is" : "are"} the service's to choose with --remote (agentcage serve takes ${local.join(", ")}); leave ${local.length === 1 ? "it" : "them"} out, or run without --remote`,
    );
}

async function runOnService(checked: CheckedRun, url: string, flags: RunFlags, io: ProgramIo): Promise<number> {
  const { runRemote } = await import("./run-remote.js");
  return runRemote(
    { ...checked, url, idleTimeoutSeconds: flags.idleTimeout, json: flags.json === true, token: io.env["AGENTCAGE_TOKEN"], trace: callerTrace(io.env) },
    io,
  );
}

/** What the Run's backend cannot go with, in its words (a Pod has no Docker network, no stand-in beside it, no disk of this host). */
function checkBackendFlags(flags: RunFlags): void {
  const backend = refusalsOf({ kubernetes: flags.kubernetes });
  const policy = flags.networkPolicy === undefined ? {} : { policy: flags.networkPolicy };
  const asks: Array<BackendAsk | undefined> = [
    flags.network === undefined ? undefined : { needs: "network", asked: "--network" },
    flags.standIn === true ? { needs: "standIn", asked: "--stand-in", ...policy } : undefined,
    flags.runFiles === "disk" ? { needs: "runFilesDisk", asked: "--run-files disk" } : undefined,
    flags.resume === undefined ? undefined : { needs: "session", asked: "--resume" },
    flags.networkPolicy === undefined ? undefined : { needs: "networkPolicy", asked: `--network-policy ${flags.networkPolicy}`, ...policy },
  ];
  const clash = asks.map((ask) => (ask === undefined ? undefined : backend.refusal(ask))).find((c) => c !== undefined);
  if (clash !== undefined) throw new UsageError(clash);
}

async function runHere(checked: CheckedRun, flags: RunFlags, io: ProgramIo): Promise<number> {
  checkBackendFlags(flags);
  checkBudgetFlags(checked, flags);
  warnOfReach(flags, io);
  const { runLocal } = await import("./run-local.js");
  const sessionRetentionDays = unlessEmpty(flags.sessionRetentionDays);
  const runFiles = unlessEmpty(flags.runFiles);
  return runLocal(
    {
      ...checked,
      image: flags.image,
      runtimeDir: flags.runtimeDir,
      networks: flags.network ?? [],
      ...(flags.networkPolicy === undefined ? {} : { networkPolicy: flags.networkPolicy }),
      ...(flags.allow === undefined ? {} : { allowlist: flags.allow }),
      standIn: flags.standIn === true,
      json: flags.json === true,
      verbose: flags.verbose === true,
      trace: callerTrace(io.env),
      ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
      ...(runFiles === undefined ? {} : { runFiles }),
      ...(sessionRetentionDays === undefined ? {} : { sessionRetentionDays }),
      ...(flags.kubernetes === undefined ? {} : { kubernetesNamespace: flags.kubernetes }),
    },
    io,
  );
}

/**
 * The trace context the command was started in, from TRACEPARENT and TRACESTATE (OpenTelemetry's
 * environment carriers, as a CI job's tracing sets them): the Run's span, here or on the service, is its child.
 */
function callerTrace(env: Readonly<Record<string, string | undefined>>): TraceHeaders {
  return traceHeadersOf({ traceparent: env["TRACEPARENT"], tracestate: env["TRACESTATE"] });
}
