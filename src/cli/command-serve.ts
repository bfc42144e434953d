// `agentcage serve`: its options (each also read from its AGENTCAGE_ variable, as compose sets them)
// and the service's settings made of them. Invariant: an empty variable means "the default", and
// the egress proxy's control socket and secret are given together or not at all.

import { type Command, Option } from "commander";
import { AGENT_IMAGE, NETWORK_POLICIES, type NetworkPolicy } from "../runner/index.js";
import { MAX_TMPFS_BYTES, MIN_TMPFS_BYTES } from "../container/index.js";
import {
  checkRunNetworkRange,
  DEFAULT_POOL_IDLE_SECONDS,
  DEFAULT_RUN_NETWORK_RANGE,
  MAX_POOL_IDLE_SECONDS,
  MAX_POOL_SIZE,
  type RunFiles,
  limits as runtimeLimits,
} from "../runtime/index.js";
import type { ServeOptions } from "../server/index.js";
import { checkNetworkFlags, runFilesOf, sessionRetentionOption } from "./command-flags.js";
import {
  absoluteDirectory,
  byteCount,
  collect,
  defaultRuntimeDir,
  engineFlag,
  optionalDollars,
  optionalWholeNumber,
  retentionDays,
  unlessEmpty,
  UsageError,
  wholeNumber,
} from "./options.js";
import type { ProgramIo } from "./io.js";

type ServeFlags = {
  writableBytes?: number | "";
  host: string;
  port: number;
  runtimeDir: string;
  store?: string;
  image: string;
  slots?: number;
  engine?: string[];
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
  runNetworkRange?: string;
  runFiles?: RunFiles | "";
  pool?: number | "";
  poolIdleSeconds?: number | "";
  tenantMaxRunning?: number | "";
  tenantMaxQueued?: number | "";
  tenantDailySpendUsd?: number | "";
  allowPrivateCallbacks?: boolean;
  kubernetes?: string;
};

export function addServeCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  const serve = program.command("serve").description("start the orchestrator service: Runs over HTTP, live events, A2A");
  serviceOptions(serve, io.env);
  networkOptions(serve);
  agentOptions(serve);
  poolOptions(serve);
  tenantOptions(serve);
  serve
    .addHelpText(
      "after",
      "\nThe token comes from AGENTCAGE_TOKEN or the file AGENTCAGE_TOKEN_FILE names; on loopback without one, a token is made\nand written to <runtime-dir>/service/token.",
    )
    .action(async (flags: ServeFlags) => {
      const { serveCommand } = await import("./serve.js");
      settle(await serveCommand(serveSettings(flags), io, unlessEmpty(flags.kubernetes)));
    });
}

/** Where the service listens, keeps its records, and how many Runs it takes. */
function serviceOptions(command: Command, env: ProgramIo["env"]): void {
  command
    .option("--host <address>", "the address to listen on (anything but loopback needs a token)", "127.0.0.1")
    .option("--port <port>", "the port (0 picks a free one)", wholeNumber("--port", 0, 65_535), 8750)
    .option("--runtime-dir <dir>", "the service's records and the Staging Directory", absoluteDirectory("--runtime-dir"), defaultRuntimeDir(env))
    .addOption(
      new Option(
        "--store <url>",
        "keep the Run records (requests, events, Outcomes, webhook deliveries, idempotency keys) in this Postgres database, postgres://user@host:5432/database; its password in PGPASSWORD, or the whole URL in AGENTCAGE_STORE, never on the command line. Tenants, API keys, the audit log, the events feed and the Runs' files stay under --runtime-dir. Default: all in files under --runtime-dir (docs/store.md)",
      ).env("AGENTCAGE_STORE"),
    )
    .option("--image <image>", "the agent image", env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .option(
      "--slots <n>",
      `Runs at once (default: as many as this host's memory holds at each Run's memory limit, ${runtimeLimits.runsMemoryHolds()} here)`,
      wholeNumber("--slots", 1, runtimeLimits.MAX_CONCURRENT_RUNS),
    )
    .addOption(
      new Option(
        "--engine <address>",
        "an engine Runs go to (repeatable; the variable takes a space-separated list): a socket path or unix://, tcp://host:2376,certs=DIR (ca.pem, cert.pem, key.pem), ssh://user@host, or local; each may add ,name=NAME and ,slots=N. Default: the one local engine (docs/engines.md)",
      )
        .argParser(engineFlag)
        .env("AGENTCAGE_ENGINES"),
    )
    .addOption(
      new Option(
        "--kubernetes <namespace>",
        "run each Run as a Pod in this namespace of the cluster the kubeconfig names (KUBECONFIG, ~/.kube/config, or in-cluster); not with --engine, --pool, --sessions, --stand-in, --run-files disk, --network-policy but none; not yet run against a live cluster (docs/kubernetes.md)",
      ).env("AGENTCAGE_KUBERNETES"),
    )
    .option("--queue-bound <n>", "Runs accepted and not ended, past which a submit gets 429", wholeNumber("--queue-bound", 1, 100_000))
    .option("--drain-seconds <n>", "on SIGTERM, how long running Runs may finish before they are cancelled", wholeNumber("--drain-seconds", 0, 86_400));
}

/** What every agent may reach, and the egress proxy that stands between it and its model. */
function networkOptions(command: Command): void {
  command
    .addOption(
      new Option("--network-policy <policy>", "what every agent may reach: none (default), model, allowlist, open (docs/network.md)")
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
    );
}

/** What each agent's Run gets: its model, its kept session and how long things are kept, its disk, its container runtime. */
function agentOptions(command: Command): void {
  command
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
    .addOption(
      new Option(
        "--run-network-range <cidr>",
        `the IPv4 range each Run's own network takes a /28 of, instead of the engine's ~30 default networks; default ${DEFAULT_RUN_NETWORK_RANGE}`,
      )
        .argParser(checkRange)
        .env("AGENTCAGE_RUN_NETWORK_RANGE"),
    )
    .addOption(
      new Option(
        "--run-files <where>",
        "how each Run's files reach the engine: disk (bind mounts; the engine shares this host's disk; default) or engine (through its archive, into volumes of the Run's own; docs/engines.md)",
      )
        .argParser(runFilesOf)
        .env("AGENTCAGE_RUN_FILES"),
    );
}

/** The warm pool: agent containers started ahead, each bound to one Run at its claim. */
function poolOptions(command: Command): void {
  command
    .addOption(
      new Option(
        "--pool <n>",
        "agent containers kept started ahead, each serving one Run warm (docs/warm-pool.md); needs root on the engine's host, not with --sessions; default 0: none",
      )
        .argParser(optionalWholeNumber("--pool", 0, MAX_POOL_SIZE, "how many agent containers to keep started ahead, e.g. 2, or 0 for none"))
        .env("AGENTCAGE_POOL"),
    )
    .addOption(
      new Option("--pool-idle-seconds <s>", `how long a pooled container waits for its Run before it is replaced; default ${DEFAULT_POOL_IDLE_SECONDS}`)
        .argParser(
          optionalWholeNumber(
            "--pool-idle-seconds",
            1,
            MAX_POOL_IDLE_SECONDS,
            `how many seconds a pooled container waits for its Run, e.g. ${DEFAULT_POOL_IDLE_SECONDS}`,
          ),
        )
        .env("AGENTCAGE_POOL_IDLE_SECONDS"),
    );
}

/** Every tenant's default quotas (agentcage tenants set changes one tenant's), and where webhooks may go. */
function tenantOptions(command: Command): void {
  command
    .addOption(
      new Option("--tenant-max-running <n>", "Runs one tenant may run at once, unless set for it (default --slots; the Operator's token: the whole service)")
        .argParser(optionalWholeNumber("--tenant-max-running", 1, 10_000, "how many Runs one tenant may run at once, e.g. 2"))
        .env("AGENTCAGE_TENANT_MAX_RUNNING"),
    )
    .addOption(
      new Option("--tenant-max-queued <n>", "Runs one tenant may have accepted and not ended, unless set for it (default half --queue-bound)")
        .argParser(optionalWholeNumber("--tenant-max-queued", 1, 1_000_000, "how many Runs one tenant may have waiting or running, e.g. 50"))
        .env("AGENTCAGE_TENANT_MAX_QUEUED"),
    )
    .addOption(
      new Option("--tenant-daily-spend-usd <usd>", "what one tenant's Runs may cost per UTC day, unless set for it (default no cap)")
        .argParser(optionalDollars("--tenant-daily-spend-usd", "an amount such as 25, or leave it out for no cap"))
        .env("AGENTCAGE_TENANT_DAILY_SPEND_USD"),
    )
    .option("--allow-private-callbacks", "let callback URLs reach loopback, link-local and private addresses (the deployment's own receivers)");
}

/** The service's settings from its flags, refused when they cannot go together. */
function serveSettings(flags: ServeFlags): ServeOptions {
  const networks = flags.agentNetwork === undefined ? undefined : listOf(flags.agentNetwork);
  const allowlist =
    flags.allow === undefined
      ? undefined
      : listOf(flags.allow)
          .flatMap((entry) => entry.split(/[\s,]+/))
          .filter((entry) => entry !== "");
  const egress = egressProxyOf(flags);
  const policy = flags.networkPolicy === undefined || (flags.networkPolicy as string) === "" ? undefined : flags.networkPolicy;
  // Empty (compose's default) is the library's own bound.
  const writableBytes = unlessEmpty(flags.writableBytes);
  const sessionRetentionDays = unlessEmpty(flags.sessionRetentionDays);
  const runRetentionDays = unlessEmpty(flags.runRetentionDays);
  const tenantMaxRunning = unlessEmpty(flags.tenantMaxRunning);
  const tenantMaxQueued = unlessEmpty(flags.tenantMaxQueued);
  const tenantDailySpendUsd = unlessEmpty(flags.tenantDailySpendUsd);
  const runNetworkRange = unlessEmpty(flags.runNetworkRange);
  const runFiles = unlessEmpty(flags.runFiles);
  const store = unlessEmpty(flags.store);
  const pool = unlessEmpty(flags.pool);
  const poolIdleSeconds = unlessEmpty(flags.poolIdleSeconds);
  const engines = flags.engine === undefined || flags.engine.length === 0 ? undefined : flags.engine;
  // With --kubernetes, --engine is refused in the words of a Pod (serve.ts), not of several engines.
  if (engines !== undefined && unlessEmpty(flags.kubernetes) === undefined) checkEnginesGoWith(flags, policy, egress);
  checkNetworkFlags({
    ...(policy === undefined ? {} : { networkPolicy: policy }),
    ...(allowlist === undefined || allowlist.length === 0 ? {} : { allow: allowlist }),
  });
  return {
    host: flags.host,
    port: flags.port,
    runtimeDir: flags.runtimeDir,
    ...(store === undefined ? {} : { store }),
    image: flags.image,
    ...(flags.slots === undefined ? {} : { slots: flags.slots }),
    ...(engines === undefined ? {} : { engines }),
    ...(flags.queueBound === undefined ? {} : { queueBound: flags.queueBound }),
    ...(flags.drainSeconds === undefined ? {} : { drainGraceMs: flags.drainSeconds * 1000 }),
    ...(networks === undefined ? {} : { agentNetworks: networks }),
    ...(policy === undefined ? {} : { networkPolicy: policy }),
    ...(allowlist === undefined || allowlist.length === 0 ? {} : { allowlist }),
    ...(egress !== undefined && policy !== undefined && policy !== "none" && policy !== "open" ? { egress } : {}),
    ...(flags.egressNetwork === undefined ? {} : { egressNetworks: listOf(flags.egressNetwork) }),
    standIn: flags.standIn === true,
    sessions: flags.sessions === true,
    ...(sessionRetentionDays === undefined ? {} : { sessionRetentionDays }),
    ...(runRetentionDays === undefined ? {} : { runRetentionDays }),
    ...(writableBytes === undefined ? {} : { writableBytes }),
    ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
    ...(runNetworkRange === undefined ? {} : { runNetworkRange }),
    ...(runFiles === undefined ? {} : { runFiles }),
    ...(pool === undefined ? {} : { pool }),
    ...(poolIdleSeconds === undefined ? {} : { poolIdleSeconds }),
    ...(tenantMaxRunning === undefined ? {} : { tenantMaxRunning }),
    ...(tenantMaxQueued === undefined ? {} : { tenantMaxQueued }),
    ...(tenantDailySpendUsd === undefined ? {} : { tenantDailySpendUsd }),
    ...(flags.allowPrivateCallbacks === true ? { allowPrivateCallbacks: true } : {}),
  };
}

/**
 * What cannot go with several engines: what lives on one engine (a network named by hand, the
 * Operator's one egress proxy, the stand-in on a network of its own, a warm pool). Under model and
 * allowlist serve starts a proxy on each engine (with the stand-in behind each, when asked).
 */
function checkEnginesGoWith(flags: ServeFlags, policy: NetworkPolicy | undefined, egress: unknown): void {
  const proxied = policy === "model" || policy === "allowlist";
  const onOne =
    flags.agentNetwork !== undefined
      ? "--agent-network"
      : proxied && egress !== undefined
        ? "--egress-control-socket"
        : flags.standIn === true && !proxied
          ? "--stand-in"
          : unlessEmpty(flags.pool) !== undefined && unlessEmpty(flags.pool) !== 0
            ? "--pool"
            : undefined;
  if (onOne === undefined) return;
  throw new UsageError(
    `${onOne} cannot go with --engine: a network named by hand, the Operator's one egress proxy, a stand-in model on a network of its own and a warm pool live on one engine, and a Run may be placed on any; over several engines leave it out (under --network-policy model or allowlist serve starts a proxy, and the stand-in behind it, on each engine), or give one engine`,
  );
}

/** A --run-network-range that cannot hold a Run's /28 is a usage error in the flag's own name; empty (compose's default) is the default range. */
function checkRange(range: string): string {
  if (range === "") return range;
  try {
    checkRunNetworkRange(range, "--run-network-range");
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return range;
}

/** The egress proxy the deployment runs, when its flags name one; undefined when serve is to start its own. */
function egressProxyOf(flags: ServeFlags): { container?: string; socketPath: string; secretFile: string } | undefined {
  const given = (value: string | undefined): value is string => value !== undefined && value !== "";
  const egressGiven = [flags.egressControlSocket, flags.egressControlSecretFile].filter(given).length;
  if (egressGiven === 1 || (egressGiven === 0 && given(flags.egressContainer))) {
    throw new UsageError(
      "--egress-control-socket and --egress-control-secret-file name one proxy together; give both (compose.yaml does), with --egress-container when it is not this deployment's own compose egress service, or none to have serve start its own",
    );
  }
  if (egressGiven !== 2) return undefined;
  return {
    ...(given(flags.egressContainer) ? { container: flags.egressContainer } : {}),
    socketPath: flags.egressControlSocket as string,
    secretFile: flags.egressControlSecretFile as string,
  };
}

/** A repeatable option's value: a list from the command line, one string from its variable. */
function listOf(value: string[] | string): string[] {
  return typeof value === "string" ? [value] : value;
}
