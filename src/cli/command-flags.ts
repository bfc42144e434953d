// The options and checks more than one command declares: what a Run is (`run` and `plan`), which
// network flags go together, which budget caps a Run's network cannot hold, how long a kept
// session stays, and which service the administration commands speak to. Invariant: a command that
// shares a flag shares its words, default and refusal.

import { type Command, Option } from "commander";
import { AGENT_IMAGE, assemblyRefusal, bothPolicyAndNetworks, NETWORK_POLICIES, reachWarning, type NetworkPolicy } from "../runner/index.js";
import { DEFAULT_SESSION_RETENTION_DAYS } from "../container/index.js";
import { RUN_FILES, type RunFiles } from "../runtime/index.js";
import { AGENT_CLIS, AGENT_EFFORTS, unheldCaps } from "../agents/index.js";
import { connectTarget } from "../egress/index.js";
import { absoluteDirectory, collect, defaultRuntimeDir, dollars, inFlagWords, retentionDays, UsageError, wholeNumber } from "./options.js";
import { checkRunArguments, type CheckedRun, type RunArguments } from "./run-args.js";
import { DEFAULT_SERVICE_URL } from "./service-client.js";
import type { CommandIo, ProgramIo } from "./io.js";

export type RunFlags = {
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
  runFiles?: RunFiles | "";
  /** run --kubernetes: the namespace the Run's Pod goes to. */
  kubernetes?: string;
  json?: boolean;
  image: string;
  runtimeDir: string;
  verbose?: boolean;
  remote?: string;
  idleTimeout: number;
  sessionRetentionDays?: number | "";
};

/** The options `run` and `plan` share: what the Run is. */
export function runOptions(command: Command, env: ProgramIo["env"]): Command {
  return command
    .argument("<cli>", "the agent: claude or codex")
    .argument("<prompt>", 'what the agent should do ("-" reads it from stdin)')
    .option("--in <dir>", "input files: the agent reads a copy of this directory in its workspace")
    .option("--exclude <glob>", 'with --in: a path of that directory the agent never sees, e.g. out, node_modules, "**/dist" (repeatable)', collect)
    .option("--out <dir>", "where the agent's out/ is harvested (refused when it holds files, unless --replace)")
    .option("--replace", "replace --out whole when it holds files")
    .option("--writable", "the agent edits a copy of --in; its changes come back as a patch (on stdout, or in --out)")
    .option("--model <model>", "the model, as the CLI names it")
    .option("--effort <level>", `reasoning effort: ${AGENT_CLIS.map((cli) => `${cli}'s ${AGENT_EFFORTS[cli].join(", ")}`).join("; ")}`)
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
export function sessionRetentionOption(): Option {
  return new Option(
    "--session-retention-days <days>",
    `days a kept session stays after its last use (a Run that kept or resumed it) before a sweep removes it (default ${DEFAULT_SESSION_RETENTION_DAYS})`,
  )
    .argParser(retentionDays("--session-retention-days", "how many days a session is kept after its last use, e.g. 30 (the default)"))
    .env("AGENTCAGE_SESSION_RETENTION_DAYS");
}

/** A network that reaches out is only ever named, never picked: when it is, stderr says what the agent can then reach. */
export function warnOfReach(flags: Pick<RunFlags, "network" | "networkPolicy">, io: Pick<CommandIo, "stderr">): void {
  const warning = reachWarning({
    ...(flags.networkPolicy === undefined ? {} : { policy: flags.networkPolicy }),
    ...(flags.network === undefined ? {} : { networks: flags.network }),
  });
  if (warning !== undefined) io.stderr.write(`agentcage: warning: ${warning}\n`);
}

/** --network-policy, --allow and --network, which only make sense in some combinations. */
export function checkNetworkFlags(flags: Pick<RunFlags, "network" | "networkPolicy" | "allow" | "standIn">): void {
  if (flags.networkPolicy !== undefined && flags.network !== undefined) {
    throw new UsageError(bothPolicyAndNetworks(`--network-policy ${flags.networkPolicy}`, `--network ${flags.network.join(", ")}`));
  }
  const standInRefusal = assemblyRefusal(
    { standIn: flags.standIn === true, ...(flags.networkPolicy === undefined ? {} : { networkPolicy: flags.networkPolicy }) },
    { standIn: "--stand-in", networkPolicy: "--network-policy" },
  );
  if (standInRefusal !== undefined) throw new UsageError(standInRefusal);
  if (flags.allow !== undefined && flags.networkPolicy !== "allowlist") {
    throw new UsageError(`--allow ${flags.allow.join(", ")} needs --network-policy allowlist; add it, or leave --allow out`);
  }
  if (flags.networkPolicy === "allowlist" && flags.allow === undefined) {
    throw new UsageError(
      "--network-policy allowlist needs at least one --allow <host:port>, such as --allow api.example.com:443; with none, use --network-policy model",
    );
  }
  for (const entry of flags.allow ?? []) {
    if (connectTarget(entry) === undefined) {
      throw new UsageError(`--allow ${JSON.stringify(entry)} is not host:port; write a host name and its port, such as api.example.com:443`);
    }
  }
}

/** A cap the Run's network cannot hold (codex's tokens and dollars, outside the egress proxy), refused before anything starts. */
export function checkBudgetFlags(checked: CheckedRun, flags: Pick<RunFlags, "network" | "networkPolicy" | "standIn">): void {
  const where = flags.networkPolicy ?? (flags.network !== undefined || flags.standIn === true ? "declared" : "none");
  const unheld = unheldCaps(checked.request.cli, checked.request.budget, where);
  if (unheld === undefined) return;
  const said = inFlagWords(unheld).replace(
    "networks declared by hand",
    flags.standIn === true && flags.network === undefined ? "--stand-in's own network" : "--network",
  );
  throw new UsageError(said);
}

/** The Run `run` and `plan` were given, checked (network flags too), its notes said on stderr. */
export async function checkedRun(cli: string, rawPrompt: string, flags: RunFlags, io: ProgramIo): Promise<CheckedRun> {
  const checked = await checkRunArguments(runArguments(cli, await promptOf(rawPrompt, io), flags));
  checkNetworkFlags(flags);
  for (const note of checked.notes) io.stderr.write(`agentcage: ${note}\n`);
  return checked;
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

/** Where the service is, and where a serve on this machine wrote its token: every command that administers a service takes both. */
export function serviceOptions(command: Command, env: ProgramIo["env"]): Command {
  return command
    .option(
      "--remote <url>",
      `the service (AGENTCAGE_URL, else ${DEFAULT_SERVICE_URL}); its token from AGENTCAGE_TOKEN or AGENTCAGE_TOKEN_FILE`,
      env["AGENTCAGE_URL"] || DEFAULT_SERVICE_URL,
    )
    .option(
      "--runtime-dir <dir>",
      "for a service on loopback and no AGENTCAGE_TOKEN: where its serve wrote service/token",
      absoluteDirectory("--runtime-dir"),
      defaultRuntimeDir(env),
    );
}

/** A --run-files that is not one of RUN_FILES is a usage error in the flag's own name; empty (compose's default) is the default. */
export function runFilesOf(value: string): RunFiles | "" {
  if (value === "" || (RUN_FILES as readonly string[]).includes(value)) return value as RunFiles | "";
  throw new UsageError(
    `--run-files ${JSON.stringify(value)} is not one of ${RUN_FILES.join(", ")}; write engine to have each Run's files go through the engine, or leave it out to bind them from this host's disk`,
  );
}
