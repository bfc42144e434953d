// The `agentcage` command line (commander 14): each subcommand's words and options, and which
// function does the work. Nothing here runs a container; every action calls the library.

import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { AGENT_IMAGE, bothPolicyAndNetworks, NETWORK_POLICIES, reachWarning, type NetworkPolicy } from "../runner/index.js";
import { MAX_TMPFS_BYTES, MIN_TMPFS_BYTES, DEFAULT_SESSION_RETENTION_DAYS } from "../container/index.js";
import { CREDENTIAL_VARIABLES, unheldCaps, type AgentCli } from "../agents/index.js";
import { connectTarget } from "../egress/index.js";
import { EXIT } from "./exit-codes.js";
import {
  absoluteDirectory,
  byteCount,
  collect,
  defaultRuntimeDir,
  dollars,
  inFlagWords,
  retentionDays,
  unlessEmpty,
  UsageError,
  wholeNumber,
} from "./options.js";
import { checkRunArguments, type CheckedRun, type RunArguments } from "./run-args.js";
import type { CommandIo, ProgramIo } from "./io.js";
import { wantsLiveView } from "./view.js";

const EXIT_CODES_HELP = `
Exit status of run: ${EXIT.completed} completed, ${EXIT.failed} failed, ${EXIT.usage} wrong arguments or a refused request,
${EXIT.unavailable} unavailable (no engine, image, credential or service), ${EXIT.timeout} timed out,
${EXIT.lost} the service went silent (the Run may go on there), ${EXIT.budget} a budget cap was passed, ${EXIT.stalled} stalled,
${EXIT.cancelled} cancelled (Ctrl-C).`;

const keyNames = (cli: AgentCli): string => CREDENTIAL_VARIABLES[cli].map(([name]) => name).join(" or ");

const RUN_HELP = `
The key comes from this process's environment, never from the command line:
claude takes ${keyNames("claude")},
codex ${keyNames("codex")} (\`agentcage doctor\` says which it finds).

The agent reads a copy of --in and can write only to its out/. --out receives that out/; with
--writable, the change set: files/ (what it added or changed in --in's copy), changes.patch (git
apply takes it on --in), changes.json, and the agent's out/ as out/ (never in the patch).
Without --out, stdout gets the answer (with --writable, the patch).
--exclude leaves a path of --in out (a glob on the path within it: node_modules is the top-level
one, "**/node_modules" every one); a checkout with its own out/ needs --exclude out.

Without a key, against the project's stand-in model:
  agentcage run claude "[stand-in:tool_write_bash] write out/answer.txt" --stand-in --out ./answer
${EXIT_CODES_HELP}`;

type RunFlags = {
  in?: string;
  exclude?: string[];
  out?: string;
  replace?: boolean;
  writable?: boolean;
  model?: string;
  effort?: string;
  maxTurns?: number;
  timeout?: number;
  maxTokens?: number;
  maxCost?: number;
  maxWall?: number;
  stall?: number;
  network?: string[];
  networkPolicy?: NetworkPolicy;
  allow?: string[];
  resume?: string;
  standIn?: boolean;
  containerRuntime?: string;
  json?: boolean;
  image: string;
  runtimeDir: string;
  verbose?: boolean;
  remote?: string;
  idleTimeout: number;
  sessionRetentionDays?: number | "";
};

type ServeFlags = {
  writableBytes?: number | "";
  host: string;
  port: number;
  runtimeDir: string;
  image: string;
  slots: number;
  queueBound?: number;
  drainSeconds?: number;
  agentNetwork?: string[] | string;
  networkPolicy?: NetworkPolicy;
  allow?: string[] | string;
  egressContainer?: string;
  egressControlSocket?: string;
  egressControlSecretFile?: string;
  egressNetwork?: string[] | string;
  standIn?: boolean;
  sessions?: boolean;
  sessionRetentionDays?: number | "";
  runRetentionDays?: number | "";
  containerRuntime?: string;
};

/** The options `run` and `plan` share: what the Run is. */
function runOptions(command: Command, env: ProgramIo["env"]): Command {
  return command
    .argument("<cli>", "the agent: claude or codex")
    .argument("<prompt>", 'what the agent should do ("-" reads it from stdin)')
    .option("--in <dir>", "input files: the agent reads a copy of this directory in its workspace")
    .option("--exclude <glob>", 'with --in: a path of that directory the agent never sees, e.g. out, node_modules, "**/dist" (repeatable)', collect)
    .option("--out <dir>", "where the agent's out/ is harvested (refused when it holds files, unless --replace)")
    .option("--replace", "replace --out whole when it holds files")
    .option("--writable", "the agent edits a copy of --in; its changes come back as a patch (on stdout, or in --out)")
    .option("--model <model>", "the model, as the CLI names it")
    .option("--effort <level>", "reasoning effort, e.g. high")
    .option(
      "--max-turns <n>",
      "the turn limit (0: none): claude's own --max-turns, ends as failed (max_turns); codex's counted from its stream, ends budget_exceeded",
      wholeNumber("--max-turns", 0, 1000),
    )
    .option("--timeout <seconds>", "end the Run after this long", wholeNumber("--timeout", 1, 24 * 3600))
    .option(
      "--max-tokens <n>",
      "budget: stop the agent past this many input + output tokens (codex: only with --network-policy model or allowlist)",
      wholeNumber("--max-tokens", 1, 1_000_000_000),
    )
    .option("--max-cost <usd>", "budget: stop the agent past this many dollars (codex: only with --network-policy model or allowlist)", dollars("--max-cost"))
    .option("--max-wall <seconds>", "budget: stop the agent after this long, keeping its answer so far", wholeNumber("--max-wall", 1, 24 * 3600))
    .option("--stall <seconds>", "stop the agent after this long printing nothing and using no CPU (default 600)", wholeNumber("--stall", 1, 24 * 3600))
    .addOption(
      new Option(
        "--network-policy <policy>",
        "what the agent may reach: none (default), model (only the egress proxy, which holds the key), allowlist (and --allow hosts), open (the internet, key in the container)",
      ).choices([...NETWORK_POLICIES]),
    )
    .option("--allow <host:port>", "with --network-policy allowlist: a host the agent may reach over HTTPS (repeatable)", collect)
    .option("--network <name>", "a network the agent joins, declared by hand instead of a policy (repeatable)", collect)
    .option("--resume <session>", "continue an earlier Run's session (its summary names it)")
    .option("--stand-in", "run against the project's stand-in model: no key, no network")
    .option("--container-runtime <name>", "the engine's container runtime for the agent, e.g. runsc (gVisor); default the engine's")
    .option("--image <image>", "the agent image", env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .option("--runtime-dir <dir>", "where Run directories and kept sessions live", absoluteDirectory("--runtime-dir"), defaultRuntimeDir(env))
    .option("--verbose", "the library's log lines on stderr");
}

/** --session-retention-days (or AGENTCAGE_SESSION_RETENTION_DAYS): how long a kept session stays after its last use before a sweep removes it. */
function sessionRetentionOption(): Option {
  return new Option(
    "--session-retention-days <days>",
    `days a kept session stays after its last use (a Run that kept or resumed it) before a sweep removes it (default ${DEFAULT_SESSION_RETENTION_DAYS})`,
  )
    .argParser(retentionDays("--session-retention-days", "how many days a session is kept after its last use, e.g. 30 (the default)"))
    .env("AGENTCAGE_SESSION_RETENTION_DAYS");
}

/** A network that reaches out is only ever named, never picked: when it is, stderr says what the agent can then reach. */
function warnOfReach(flags: Pick<RunFlags, "network" | "networkPolicy">, io: Pick<CommandIo, "stderr">): void {
  const warning = reachWarning({
    ...(flags.networkPolicy === undefined ? {} : { policy: flags.networkPolicy }),
    ...(flags.network === undefined ? {} : { networks: flags.network }),
  });
  if (warning !== undefined) io.stderr.write(`agentcage: warning: ${warning}\n`);
}

/** --network-policy, --allow and --network, which only make sense in some combinations. */
function checkNetworkFlags(flags: Pick<RunFlags, "network" | "networkPolicy" | "allow">): void {
  if (flags.networkPolicy !== undefined && flags.network !== undefined) {
    throw new UsageError(bothPolicyAndNetworks(`--network-policy ${flags.networkPolicy}`, `--network ${flags.network.join(", ")}`));
  }
  if (flags.allow !== undefined && flags.networkPolicy !== "allowlist") {
    throw new UsageError(`--allow ${flags.allow.join(", ")} needs --network-policy allowlist; add it, or leave --allow out`);
  }
  if (flags.networkPolicy === "allowlist" && flags.allow === undefined) {
    throw new UsageError(
      "--network-policy allowlist needs at least one --allow <host:port>, such as --allow registry.npmjs.org:443; with none, use --network-policy model",
    );
  }
  for (const entry of flags.allow ?? []) {
    if (connectTarget(entry) === undefined) {
      throw new UsageError(`--allow ${JSON.stringify(entry)} is not host:port; write a host name and its port, such as registry.npmjs.org:443`);
    }
  }
}

/** A cap the Run's network cannot hold (codex's tokens and dollars, outside the egress proxy), refused before anything starts. */
function checkBudgetFlags(checked: CheckedRun, flags: Pick<RunFlags, "network" | "networkPolicy" | "standIn">): void {
  const where = flags.networkPolicy ?? (flags.network !== undefined || flags.standIn === true ? "declared" : "none");
  const unheld = unheldCaps(checked.request.cli, checked.request.budget, where);
  if (unheld === undefined) return;
  const said = inFlagWords(unheld).replace(
    "networks declared by hand",
    flags.standIn === true && flags.network === undefined ? "--stand-in's own network" : "--network",
  );
  throw new UsageError(said);
}

/** This package's version, from its package.json (two levels above the compiled file). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

async function promptOf(raw: string, io: ProgramIo): Promise<string> {
  return raw === "-" ? io.readStdin() : raw;
}

function runArguments(cli: string, prompt: string, flags: RunFlags): RunArguments {
  const optional = <K extends keyof RunArguments>(key: K, value: RunArguments[K] | undefined) => (value === undefined ? {} : { [key]: value });
  return {
    cli,
    prompt,
    ...optional("in", flags.in),
    ...optional("exclude", flags.exclude),
    ...optional("out", flags.out),
    ...optional("replace", flags.replace),
    ...optional("writable", flags.writable),
    ...optional("model", flags.model),
    ...optional("effort", flags.effort),
    ...optional("maxTurns", flags.maxTurns),
    ...optional("timeout", flags.timeout),
    ...optional("maxTokens", flags.maxTokens),
    ...optional("maxCost", flags.maxCost),
    ...optional("maxWall", flags.maxWall),
    ...optional("stall", flags.stall),
    ...optional("resume", flags.resume),
  };
}

/** The program; `settle` receives each action's exit status. */
export function buildProgram(io: ProgramIo, settle: (code: number) => void): Command {
  const program = new Command("agentcage")
    .description("Run AI coding-agent CLIs in one fresh, locked-down container per Run.")
    .version(packageVersion(), "--version", "print agentcage's version")
    .showHelpAfterError("(add --help to the command for its usage)")
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .exitOverride();

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
    .addHelpText("after", RUN_HELP)
    .action(async (cli: string, rawPrompt: string, flags: RunFlags, command: Command) => {
      const checked = await checkRunArguments(runArguments(cli, await promptOf(rawPrompt, io), flags));
      checkNetworkFlags(flags);
      for (const note of checked.notes) io.stderr.write(`agentcage: ${note}\n`);
      if (flags.remote !== undefined) {
        // The service runs on its own settings: a local-only option given with --remote would be silently ignored.
        const local = [
          flags.standIn === true ? "--stand-in" : undefined,
          flags.network === undefined ? undefined : "--network",
          flags.networkPolicy === undefined ? undefined : "--network-policy",
          flags.allow === undefined ? undefined : "--allow",
          flags.containerRuntime === undefined ? undefined : "--container-runtime",
          // From AGENTCAGE_SESSION_RETENTION_DAYS (set for a local serve, say) it is not a choice made for this Run.
          command.getOptionValueSource("sessionRetentionDays") === "cli" ? "--session-retention-days" : undefined,
        ].filter((o) => o !== undefined);
        if (local.length > 0)
          throw new UsageError(
            `${local.join(", ")} ${local.length === 1 ? "is" : "are"} the service's to choose with --remote (agentcage serve takes ${local.join(", ")}); leave ${local.length === 1 ? "it" : "them"} out, or run without --remote`,
          );
        const { runRemote } = await import("./run-remote.js");
        settle(
          await runRemote(
            { ...checked, url: flags.remote, idleTimeoutSeconds: flags.idleTimeout, json: flags.json === true, token: io.env["AGENTCAGE_TOKEN"] },
            io,
          ),
        );
        return;
      }
      checkBudgetFlags(checked, flags);
      warnOfReach(flags, io);
      const { runLocal } = await import("./run-local.js");
      const sessionRetentionDays = unlessEmpty(flags.sessionRetentionDays);
      settle(
        await runLocal(
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
            ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
            ...(sessionRetentionDays === undefined ? {} : { sessionRetentionDays }),
          },
          io,
        ),
      );
    });

  runOptions(program.command("plan").description("print the docker run command for the same arguments, starting nothing"), io.env).action(
    async (cli: string, rawPrompt: string, flags: RunFlags) => {
      const checked = await checkRunArguments(runArguments(cli, await promptOf(rawPrompt, io), flags));
      checkNetworkFlags(flags);
      for (const note of checked.notes) io.stderr.write(`agentcage: ${note}\n`);
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

  program
    .command("serve")
    .description("start the orchestrator service: Runs over HTTP, live events, A2A")
    .option("--host <address>", "the address to listen on (anything but loopback needs a token)", "127.0.0.1")
    .option("--port <port>", "the port (0 picks a free one)", wholeNumber("--port", 0, 65_535), 8750)
    .option("--runtime-dir <dir>", "the service's records and the Staging Directory", absoluteDirectory("--runtime-dir"), defaultRuntimeDir(io.env))
    .option("--image <image>", "the agent image", io.env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .option("--slots <n>", "Runs at once", wholeNumber("--slots", 1, 64), 2)
    .option("--queue-bound <n>", "Runs accepted and not ended, past which a submit gets 429", wholeNumber("--queue-bound", 1, 100_000))
    .option("--drain-seconds <n>", "on SIGTERM, how long running Runs may finish before they are cancelled", wholeNumber("--drain-seconds", 0, 86_400))
    .addOption(
      new Option("--network-policy <policy>", "what every agent may reach: none (default), model, allowlist, open (README: network policies)")
        .choices([...NETWORK_POLICIES])
        .env("AGENTCAGE_NETWORK_POLICY"),
    )
    .addOption(
      new Option(
        "--allow <host:port>",
        "with --network-policy allowlist: a host agents may reach over HTTPS (repeatable; the variable takes a comma-separated list)",
      )
        .argParser(collect)
        .env("AGENTCAGE_ALLOWLIST"),
    )
    .addOption(
      new Option(
        "--egress-container <name>",
        "the egress proxy the deployment runs, by container name or id; default with --egress-control-socket: this compose project's egress service, else serve starts its own",
      ).env("AGENTCAGE_EGRESS_CONTAINER"),
    )
    .addOption(new Option("--egress-control-socket <path>", "that proxy's control socket").env("AGENTCAGE_EGRESS_CONTROL_SOCKET"))
    .addOption(new Option("--egress-control-secret-file <path>", "the file holding that proxy's control secret").env("AGENTCAGE_EGRESS_CONTROL_SECRET_FILE"))
    .addOption(
      new Option(
        "--egress-network <name>",
        "for the proxy serve starts: a network through which it reaches the providers (repeatable); default bridge",
      ).argParser(collect),
    )
    .addOption(
      new Option("--agent-network <name>", "a network every agent joins, declared by hand instead of a policy (repeatable)")
        .argParser(collect)
        .env("AGENTCAGE_AGENT_NETWORK"),
    )
    .option("--stand-in", "run every agent against the stand-in model (no key needed)")
    .option("--sessions", "keep each Run's session so a later Run can resume it (resumeSession; agentcage run --resume)")
    .addOption(sessionRetentionOption())
    .addOption(
      new Option(
        "--run-retention-days <days>",
        "how long an ended Run's record and artifacts are kept before a sweep removes them, as DELETE does (default: until DELETE)",
      )
        .argParser(
          retentionDays(
            "--run-retention-days",
            "how many days an ended Run's record and artifacts are kept, e.g. 90, or leave it out to keep them until DELETE",
          ),
        )
        .env("AGENTCAGE_RUN_RETENTION_DAYS"),
    )
    .addOption(
      new Option("--writable-bytes <n>", "bytes each agent may write (its out/, or its writable work/); default 256 MiB")
        .argParser(
          byteCount("--writable-bytes", MIN_TMPFS_BYTES, MAX_TMPFS_BYTES, "how many bytes each agent may write, e.g. 268435456 (256 MiB, the default)"),
        )
        .env("AGENTCAGE_WRITABLE_BYTES"),
    )
    .option("--container-runtime <name>", "the engine's container runtime for every agent, e.g. runsc (gVisor); default the engine's")
    .addHelpText(
      "after",
      "\nThe token comes from AGENTCAGE_TOKEN or the file AGENTCAGE_TOKEN_FILE names; on loopback without one, a token is made\nand written to <runtime-dir>/service/token.",
    )
    .action(async (flags: ServeFlags) => {
      const { serveCommand } = await import("./serve.js");
      const networks = flags.agentNetwork === undefined ? undefined : typeof flags.agentNetwork === "string" ? [flags.agentNetwork] : flags.agentNetwork;
      const allowlist =
        flags.allow === undefined
          ? undefined
          : (typeof flags.allow === "string" ? [flags.allow] : flags.allow).flatMap((entry) => entry.split(/[\s,]+/)).filter((entry) => entry !== "");
      const given = (value: string | undefined): value is string => value !== undefined && value !== "";
      const egressGiven = [flags.egressControlSocket, flags.egressControlSecretFile].filter(given).length;
      if (egressGiven === 1 || (egressGiven === 0 && given(flags.egressContainer))) {
        throw new UsageError(
          "--egress-control-socket and --egress-control-secret-file name one proxy together; give both (compose.yaml does), with --egress-container when it is not this deployment's own compose egress service, or none to have serve start its own",
        );
      }
      const policy = flags.networkPolicy === undefined || (flags.networkPolicy as string) === "" ? undefined : flags.networkPolicy;
      // Empty (compose's default) is the library's own bound.
      const writableBytes = unlessEmpty(flags.writableBytes);
      const sessionRetentionDays = unlessEmpty(flags.sessionRetentionDays);
      const runRetentionDays = unlessEmpty(flags.runRetentionDays);
      checkNetworkFlags({
        ...(policy === undefined ? {} : { networkPolicy: policy }),
        ...(allowlist === undefined || allowlist.length === 0 ? {} : { allow: allowlist }),
      });
      settle(
        await serveCommand(
          {
            host: flags.host,
            port: flags.port,
            runtimeDir: flags.runtimeDir,
            image: flags.image,
            slots: flags.slots,
            ...(flags.queueBound === undefined ? {} : { queueBound: flags.queueBound }),
            ...(flags.drainSeconds === undefined ? {} : { drainGraceMs: flags.drainSeconds * 1000 }),
            ...(networks === undefined ? {} : { agentNetworks: networks }),
            ...(policy === undefined ? {} : { networkPolicy: policy }),
            ...(allowlist === undefined || allowlist.length === 0 ? {} : { allowlist }),
            ...(egressGiven === 2 && policy !== undefined && policy !== "none" && policy !== "open"
              ? {
                  egress: {
                    ...(given(flags.egressContainer) ? { container: flags.egressContainer } : {}),
                    socketPath: flags.egressControlSocket as string,
                    secretFile: flags.egressControlSecretFile as string,
                  },
                }
              : {}),
            ...(flags.egressNetwork === undefined
              ? {}
              : { egressNetworks: typeof flags.egressNetwork === "string" ? [flags.egressNetwork] : flags.egressNetwork }),
            standIn: flags.standIn === true,
            sessions: flags.sessions === true,
            ...(sessionRetentionDays === undefined ? {} : { sessionRetentionDays }),
            ...(runRetentionDays === undefined ? {} : { runRetentionDays }),
            ...(writableBytes === undefined ? {} : { writableBytes }),
            ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
          },
          io,
        ),
      );
    });

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

  program
    .command("sweep")
    .description("remove what crashed agentcage processes left: their containers and Run directories")
    .option("--runtime-dir <dir>", "the Staging Directory's parent", absoluteDirectory("--runtime-dir"), defaultRuntimeDir(io.env))
    .option("--image <image>", "the agent image", io.env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .addOption(sessionRetentionOption())
    .action(async (flags: { runtimeDir: string; image: string; sessionRetentionDays?: number | "" }) => {
      const { sweep } = await import("./sweep.js");
      const retention = unlessEmpty(flags.sessionRetentionDays);
      settle(await sweep({ runtimeDir: flags.runtimeDir, image: flags.image, ...(retention === undefined ? {} : { sessionRetentionDays: retention }) }, io));
    });

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

  return program;
}
