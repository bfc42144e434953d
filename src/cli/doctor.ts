// `agentcage doctor`: whether this machine can run agents, one line per check and the fix beside
// each warning and failure, in the style of `brew doctor`. Every question goes through the library
// (the engine's facts, the image, each CLI's own --version, the credentials' kinds, the Staging
// Directory probe, whether this process can mount for a warm pool, the Run networks' range against
// this host's routes; with --remote, what a running service says makes it less than it says);
// doctor-checks.ts judges the answers. Exit 0 when nothing failed, 1 otherwise.
// Invariant: no credential value ever reaches the output; what is printed is masked besides.

import { access, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { createColors } from "picocolors";
import { pino } from "pino";
import { AGENT_CLIS, adapterFor, CredentialError, findCredential, type AgentCli, type CredentialKind } from "../agents/index.js";
import { AGENT_IMAGE, agentCliVersions, createAgentRunner } from "../runner/index.js";
import {
  containerMounts,
  inspectEngine,
  inspectImage,
  probeStagingDirectory,
  type EngineConnection,
  type EngineReport,
  type ImageReport,
  type StagingProbe,
  type StagingProbeFailure,
} from "../probes/index.js";
import { createMasker } from "../redact/index.js";
import {
  checkRunNetworkRange,
  DEFAULT_RUN_NETWORK_RANGE,
  describeValue,
  engineSetOf,
  limits,
  MAX_POOL_SIZE,
  routesOfRange,
  type KubernetesBackend,
} from "../runtime/index.js";
import { canBoundWrites } from "../staging/index.js";
import { packageRoot, parseClisEnv } from "../testing/index.js";
import {
  type ContainerMount,
  type EngineFacts,
  cliCheck,
  credentialCheck,
  engineCheck,
  imageCheck,
  poolCheck,
  runNetworkRangeCheck,
  runtimeCheck,
  serviceChecks,
  runtimesCheck,
  skippedCheck,
  stagingCheck,
  stagingOnEngineCheck,
  type DoctorCheck,
  type RangeRoutes,
  type ServiceReport,
  type Whereabouts,
} from "./doctor-checks.js";
import { clusterCheck } from "./kube-config.js";
import { UsageError } from "./options.js";

/** The engine a doctor may be handed (a test's fake), as the probes take it. */
type Engine = NonNullable<EngineConnection["engine"]>;
export type DoctorOptions = {
  /** As `serve` and `run` take it: absolute; the Staging Directory is `<runtimeDir>/staging`. */
  readonly runtimeDir: string;
  /** The agent image to check. */
  readonly image: string;
  /** Where the report goes (stdout). */
  readonly stream: NodeJS.WritableStream;
  /** Colour the status words; default false (plain text, no escape codes). */
  readonly color?: boolean;
  /** One JSON array of { check, status, detail, fix } instead of lines; default false. */
  readonly json?: boolean;
  /** Where credentials are looked up first; default this process's environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** As the runner takes it: credentials in files named like the variables; default none. */
  readonly secretsDirectory?: string;
  /** As the runner takes it: a codex ChatGPT login (auth.json); default none. */
  readonly codexLoginDirectory?: string;
  /** The engine to check; default Docker through DOCKER_HOST, else the local socket. */
  readonly engine?: Engine;
  /**
   * Several engines (`--engine`): each gets a line saying whether it answers and one saying whether
   * it holds the image; the other checks ask the first. Default: the one engine.
   */
  readonly engines?: ReadonlyArray<{ readonly name: string; readonly engine: Engine }>;
  /** Where this process runs; default: read from the signs a container leaves (whereabouts()). */
  readonly whereabouts?: Whereabouts;
  /** As `serve --kubernetes` takes it: the cluster and its namespace are checked instead of an engine; default: the engine. */
  readonly kubernetes?: KubernetesBackend;
  /** What this host's routes say of a Run network range; default: read from the kernel's table (routesOfRange). */
  readonly routes?: (range: string) => RangeRoutes;
  /**
   * A running service to ask (doctor --remote): a line for each thing that makes it less than it
   * says, with its fix, or one saying nothing does. Default: none asked.
   */
  readonly service?: () => Promise<ServiceReport>;
};

const OPTION_NAMES = [
  "runtimeDir",
  "image",
  "stream",
  "color",
  "json",
  "environment",
  "secretsDirectory",
  "codexLoginDirectory",
  "engine",
  "engines",
  "whereabouts",
  "kubernetes",
  "routes",
  "service",
];
/** Names of variables whose values are masked in the report, whatever it quotes. */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASS|CRED|AUTH/i;

/** Runs every check, prints the report, and resolves with the exit status: 1 when a check failed, else 0. */
export async function doctor(options: DoctorOptions, ...extra: never[]): Promise<number> {
  checkOptions(options, extra);
  const env = options.environment ?? process.env;
  const masker = createMasker(
    Object.entries(env).flatMap(([name, value]) =>
      value !== undefined && SECRET_NAME.test(name) && value.length >= limits.MIN_MASKED_VALUE_LENGTH ? [value] : [],
    ),
  );
  const clean = (check: DoctorCheck): DoctorCheck => ({
    check: check.check,
    status: check.status,
    detail: oneLine(masker.mask(check.detail)),
    ...(check.fix === undefined ? {} : { fix: oneLine(masker.mask(check.fix)) }),
  });
  const pending = startChecks(options);
  // The running service's lines come last, as many as it has degradations.
  const service = options.service === undefined ? undefined : serviceReport(options.service);
  const checks: DoctorCheck[] = [];
  const report = (check: DoctorCheck): void => {
    checks.push(clean(check));
    if (options.json !== true) options.stream.write(`${renderCheck(clean(check), options.color === true)}\n`);
  };
  for (const next of pending) report(await next);
  for (const check of service === undefined ? [] : serviceChecks(await service)) report(check);
  if (options.json === true)
    options.stream.write(
      `${JSON.stringify(
        checks.map((c) => ({ ...c, fix: c.fix ?? null })),
        null,
        2,
      )}\n`,
    );
  else options.stream.write(`${summary(checks, options.color === true)}\n`);
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}

/** Every check, started at once after the engine's; in the order they are reported. */
export function startChecks(options: DoctorOptions): Promise<DoctorCheck>[] {
  // Where a Run would go, as the options name it (doctor makes no runtime to ask): the cluster, else the engines, the first asked for what they share.
  if (options.kubernetes !== undefined) return guarded(clusterChecks(options, options.kubernetes));
  const named = options.engines ?? [];
  const first = options.engine ?? named[0]?.engine;
  const connection = first === undefined ? {} : { engine: first };
  const stagingDir = posix.join(options.runtimeDir, "staging");
  const place = options.whereabouts === undefined ? whereabouts() : Promise.resolve(options.whereabouts);
  const engineReport = inspectEngine(connection);
  const facts = engineReport.then((r) => (r.ok ? r.facts : undefined));
  const whenEngine = <T>(then: (facts: EngineFacts) => Promise<T>) => facts.then((f) => (f === undefined ? undefined : then(f)));
  const imageReport = whenEngine(() => inspectImage(options.image, connection));
  const present = imageReport.then((r) => r?.ok === true && r.facts !== undefined);
  const versions = present.then((yes) => (yes ? agentCliVersions({ image: options.image, ...connection }) : undefined));
  const pinned = pinnedVersions();
  // The probe needs the engine; without one, whether the directory can be written is still worth saying.
  const probe = facts.then((f) =>
    f === undefined ? writableOnly(stagingDir) : probeStagingDirectory({ runtimeDir: stagingDir, image: options.image, ...connection }),
  );
  const kinds = facts.then((f) => credentialKinds(options, f !== undefined));
  const noEngine = "the engine does not answer";

  const firstName = named[0]?.name;
  const where =
    options.engine !== undefined
      ? "the engine given"
      : firstName !== undefined
        ? `engine ${JSON.stringify(firstName)}`
        : process.env["DOCKER_HOST"] || "unix:///var/run/docker.sock";
  const cli = (name: AgentCli) =>
    Promise.all([facts, present, versions, pinned]).then(([f, yes, found, pins]) =>
      f === undefined
        ? skippedCheck(`${name} cli`, noEngine)
        : !yes || found === undefined
          ? skippedCheck(`${name} cli`, "the agent image is missing")
          : cliCheck(name, found[name], pins[name]),
    );
  const checks: [string, Promise<DoctorCheck>][] = [
    ["engine", engineReport.then((r: EngineReport) => engineCheck(r, where))],
    ["runtime", facts.then((f) => (f === undefined ? skippedCheck("runtime", noEngine) : runtimeCheck(f)))],
    ["runtimes", facts.then((f) => (f === undefined ? skippedCheck("runtimes", noEngine) : runtimesCheck(f)))],
    [
      "image",
      Promise.all([imageReport, facts]).then(([r, f]: [ImageReport | undefined, EngineFacts | undefined]) =>
        r === undefined ? skippedCheck("image", noEngine) : imageCheck(options.image, r, f, options.image === AGENT_IMAGE),
      ),
    ],
    ...AGENT_CLIS.map((name): [string, Promise<DoctorCheck>] => [`${name} cli`, cli(name)]),
    ...AGENT_CLIS.map((name): [string, Promise<DoctorCheck>] => [
      `${name} credential`,
      kinds.then((k) => credentialCheck(name, k[name].kind, k[name].looked, k[name].problem)),
    ]),
    ["staging directory", probe.then(stagingCheck)],
    [
      "staging on engine",
      Promise.all([probe, place, present, facts]).then(async ([p, here, yes, f]) => {
        // Through the engine, a Run binds nothing of this directory: where the engine resolves it does not matter.
        if ((options.environment ?? process.env)["AGENTCAGE_RUN_FILES"] === "engine")
          return skippedCheck("staging on engine", "AGENTCAGE_RUN_FILES=engine: each Run's files go through the engine, which need not see this directory");
        if (!p.ok && f === undefined && p.failure !== "unwritable") return skippedCheck("staging on engine", noEngine);
        const misplaced = !p.ok && (p.failure === "not_on_engine" || p.failure === "other_directory");
        const mounts = misplaced && here.inContainer && here.containerId !== undefined ? await ownMounts(here.containerId, options.engine) : undefined;
        return stagingOnEngineCheck(p, here, options.runtimeDir, mounts, !yes);
      }),
    ],
    [
      "pool",
      Promise.all([facts, present]).then(([f, yes]) =>
        poolCheck((options.environment ?? process.env)["AGENTCAGE_POOL"], canBoundWrites(), f === undefined ? undefined : yes, MAX_POOL_SIZE),
      ),
    ],
    ["run network range", place.then((here) => rangeCheck(options, here.inContainer))],
    ...named.flatMap(({ name, engine }) => eachEngineChecks(name, engine, options.image)),
  ];
  return guarded(checks);
}

/** The Run networks' range serve would take (AGENTCAGE_RUN_NETWORK_RANGE, else the default) against this host's routes. */
async function rangeCheck(options: DoctorOptions, inContainer: boolean): Promise<DoctorCheck> {
  const asked = (options.environment ?? process.env)["AGENTCAGE_RUN_NETWORK_RANGE"];
  const range = asked === undefined || asked === "" ? DEFAULT_RUN_NETWORK_RANGE : asked;
  let refusal: string | undefined;
  try {
    checkRunNetworkRange(range, "AGENTCAGE_RUN_NETWORK_RANGE");
  } catch (error) {
    refusal = error instanceof Error ? error.message : String(error);
  }
  const routes = refusal !== undefined ? { hosts: [], engines: [] } : (options.routes ?? routesOfRange)(range);
  return runNetworkRangeCheck(asked, range, refusal, routes, inContainer);
}

/**
 * With --kubernetes: the cluster (its API server, the namespace's Pod Security label) instead of the
 * engine; what only an engine answers is skipped; the credentials and this host's directory are still checked.
 */
function clusterChecks(options: DoctorOptions, backend: KubernetesBackend): [string, Promise<DoctorCheck>][] {
  const onPods = "on Kubernetes the cluster pulls the image and runs each Run's Pod";
  const stagingDir = posix.join(options.runtimeDir, "staging");
  const kinds = credentialKinds(options, false);
  const skipped = ["runtime", "runtimes", "image", ...AGENT_CLIS.map((name) => `${name} cli`), "staging on engine", "pool", "run network range"];
  return [
    ["cluster", clusterCheck(backend)],
    ...skipped.map((name): [string, Promise<DoctorCheck>] => [name, Promise.resolve(skippedCheck(name, onPods))]),
    ...AGENT_CLIS.map((name): [string, Promise<DoctorCheck>] => [
      `${name} credential`,
      kinds.then((k) => credentialCheck(name, k[name].kind, k[name].looked, k[name].problem)),
    ]),
    [
      "staging directory",
      writableOnly(stagingDir).then((p) =>
        !p.ok && p.failure === "unwritable"
          ? stagingCheck(p)
          : { check: "staging directory", status: "ok", detail: `${stagingDir} is writable; each Run's files go to its Pod through the API` },
      ),
    ],
  ];
}

/** The service's answer; a failure to ask is said as the service's own line, never thrown. */
function serviceReport(ask: () => Promise<ServiceReport>): Promise<ServiceReport> {
  return ask().catch((error: unknown) => ({
    ok: false as const,
    url: "the service",
    error: `the check itself failed: ${error instanceof Error ? error.message : String(error)}`,
  }));
}

function guarded(checks: [string, Promise<DoctorCheck>][]): Promise<DoctorCheck>[] {
  // A check that throws is a defect, reported as its own failure; it must not take the others down.
  return checks.map(([check, pending]) =>
    pending.catch(
      (error: unknown): DoctorCheck => ({
        check,
        status: "fail",
        detail: `the check itself failed: ${error instanceof Error ? error.message : String(error)}`,
        fix: "report this as a bug in agentcage",
      }),
    ),
  );
}

/** One engine of several: whether it answers, and whether it holds the image, each on a line named for it. */
function eachEngineChecks(name: string, engine: Engine, image: string): [string, Promise<DoctorCheck>][] {
  const report = inspectEngine({ engine });
  const facts = report.then((r) => (r.ok ? r.facts : undefined));
  const answers = `engine ${name}`;
  const holds = `image on ${name}`;
  return [
    [answers, report.then((r) => ({ ...engineCheck(r, `engine ${JSON.stringify(name)}`), check: answers }))],
    [
      holds,
      facts.then(async (f) =>
        f === undefined
          ? skippedCheck(holds, "the engine does not answer")
          : {
              ...imageCheck(image, await inspectImage(image, { engine }), f, image === AGENT_IMAGE),
              check: holds,
              ...(image === AGENT_IMAGE ? {} : { fix: `load it there: docker save ${image} | docker -H <that engine> load` }),
            },
      ),
    ],
  ];
}

/** The engines `--engine` names, for doctor's checks; a value that cannot mean anything is a usage error naming --engine. */
export function doctorEngines(values: readonly string[]): Array<{ readonly name: string; readonly engine: Engine }> {
  try {
    const set = engineSetOf(values, "--engine");
    // Only its engines are wanted, not its pings.
    set.close();
    return [...set.engines()];
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The probe's first step alone (make the directory, write a file in it, remove it), for when there is no engine to probe with. */
async function writableOnly(runtimeDir: string): Promise<StagingProbe> {
  const startedAt = performance.now();
  const result = (failure: StagingProbeFailure, error: string): StagingProbe => ({
    ok: false,
    runtimeDir,
    failure,
    error,
    durationMs: Math.round(performance.now() - startedAt),
  });
  let dir: string | undefined;
  try {
    await mkdir(runtimeDir, { recursive: true, mode: 0o700 });
    dir = await mkdtemp(join(runtimeDir, ".probe-"));
    await writeFile(join(dir, "nonce"), "", { flag: "wx" });
    return result("unavailable", "the engine does not answer");
  } catch (error) {
    return result("unwritable", `this process cannot write in ${JSON.stringify(runtimeDir)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

type Found = { readonly kind: CredentialKind; readonly looked: readonly string[]; readonly problem?: string };

/** The kind of credential each CLI's Run would get (the runner's own check), and where a missing one was looked for. */
async function credentialKinds(options: DoctorOptions, engineAnswers: boolean): Promise<Record<AgentCli, Found>> {
  const sources = {
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    ...(options.secretsDirectory === undefined ? {} : { secretsDirectory: options.secretsDirectory }),
    ...(options.codexLoginDirectory === undefined ? {} : { codexLoginDirectory: options.codexLoginDirectory }),
  };
  let kinds: Partial<Record<AgentCli, CredentialKind>> = {};
  let refused: string | undefined;
  // The runner's check asks the engine too: only when it answers, so a silent engine cannot hold this up.
  if (engineAnswers) {
    try {
      const runner = createAgentRunner({
        image: options.image,
        ...sources,
        ...(options.codexLoginDirectory === undefined ? {} : { staging: { runtimeDir: posix.join(options.runtimeDir, "staging") } }),
        ...(options.engine === undefined ? {} : { engine: options.engine }),
        logger: pino({ level: "silent" }),
      });
      kinds = (await runner.check()).credentials;
    } catch (error) {
      refused = error instanceof Error ? error.message : String(error);
    }
  }
  const found = {} as Record<AgentCli, Found>;
  for (const cli of AGENT_CLIS) {
    if (refused !== undefined) {
      found[cli] = { kind: "none", looked: [], problem: refused };
      continue;
    }
    try {
      const { codexLoginDirectory, ...rest } = sources;
      const credential = await findCredential(cli, { ...rest, ...(codexLoginDirectory === undefined ? {} : { loginDirectory: codexLoginDirectory }) });
      const kind = kinds[cli] ?? credential.kind;
      found[cli] = { kind, looked: credential.kind === "none" ? credential.looked : [] };
    } catch (error) {
      found[cli] = { kind: "none", looked: [], problem: error instanceof CredentialError ? error.message : String(error) };
    }
  }
  return found;
}

/** The CLI versions this agentcage pins (images/agent/clis.env of the installed package); none when its files are missing. */
async function pinnedVersions(): Promise<Partial<Record<AgentCli, string>>> {
  try {
    const clis = parseClisEnv(await readFile(join(packageRoot(), "images", "agent", "clis.env"), "utf8"));
    return Object.fromEntries(AGENT_CLIS.flatMap((cli) => (clis[adapterFor(cli).pin.version] ? [[cli, clis[adapterFor(cli).pin.version]]] : [])));
  } catch {
    return {};
  }
}

async function ownMounts(containerId: string, engine: Engine | undefined): Promise<readonly ContainerMount[] | undefined> {
  const report = await containerMounts(containerId, engine === undefined ? {} : { engine });
  return report.ok ? report.mounts : undefined;
}

/**
 * Whether this process runs in a container, from the signs engines leave: /.dockerenv (Docker),
 * /run/.containerenv (podman), a container's cgroup on PID 1; and its id, from the files the engine
 * bound into it (/etc/hostname and friends come from `.../containers/<id>/`). `root` is for tests.
 */
export async function whereabouts(root = "/"): Promise<Whereabouts> {
  const read = (path: string) => readFile(join(root, path), "utf8").catch(() => "");
  const exists = (path: string) =>
    access(join(root, path)).then(
      () => true,
      () => false,
    );
  const containerenv = await read("run/.containerenv");
  const id =
    /\/containers\/([0-9a-f]{64})\/(?:hostname|hosts|resolv\.conf) \/etc\//.exec(await read("proc/self/mountinfo"))?.[1] ??
    /^id="([0-9a-f]{64})"$/m.exec(containerenv)?.[1];
  const inside = (evidence: string): Whereabouts => ({ inContainer: true, evidence, ...(id === undefined ? {} : { containerId: id }) });
  if (await exists(".dockerenv")) return inside("/.dockerenv");
  if (await exists("run/.containerenv")) return inside("/run/.containerenv");
  if (/\/(?:docker|kubepods|containerd|libpod|lxc)\b/.test(await read("proc/1/cgroup"))) return inside("/proc/1/cgroup");
  return { inContainer: false, evidence: "" };
}

/** One line: the status word, the check's name, what was found, and the fix. */
export function renderCheck(check: DoctorCheck, color: boolean): string {
  const paint = createColors(color);
  const word = { ok: paint.green("ok  "), warn: paint.yellow("warn"), fail: paint.bold(paint.red("FAIL")), skip: paint.dim("skip") }[check.status];
  const line = `${word}  ${check.check.padEnd(18)} ${check.detail}`;
  return check.fix === undefined ? line : `${line}; ${paint.bold("fix")}: ${check.fix}`;
}

function summary(checks: readonly DoctorCheck[], color: boolean): string {
  const paint = createColors(color);
  const count = (status: DoctorCheck["status"]) => checks.filter((c) => c.status === status).length;
  const [failed, warned, skipped] = [count("fail"), count("warn"), count("skip")];
  if (failed + warned + skipped === 0) return paint.green(`agentcage doctor: all ${checks.length} checks passed`);
  const parts = [
    `${count("ok")} ok`,
    ...(warned > 0 ? [`${warned} warning${warned === 1 ? "" : "s"}`] : []),
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(skipped > 0 ? [`${skipped} skipped`] : []),
  ];
  const text = `agentcage doctor: ${parts.join(", ")}`;
  return failed > 0 ? paint.red(text) : warned > 0 ? paint.yellow(text) : text;
}

/** What an engine or a CLI said, on one line, with no control characters left to drive a terminal. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function checkOptions(options: DoctorOptions, extra: readonly unknown[]): void {
  if (extra.length > 0) throw new UsageError(`doctor takes one argument, its options; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null)
    throw new UsageError(`doctor's options ${describeValue(options)} is not an object; pass { runtimeDir, image, stream }`);
  const unknown = Object.keys(options).filter((key) => !OPTION_NAMES.includes(key));
  if (unknown.length > 0) throw new UsageError(`doctor option ${JSON.stringify(unknown[0])} is not one it knows; use ${OPTION_NAMES.join(", ")}`);
  const absolute = (flag: string, value: unknown): void => {
    if (value !== undefined && (typeof value !== "string" || !posix.isAbsolute(value) || value.includes("\0"))) {
      throw new UsageError(
        `${flag} ${JSON.stringify(value)} is not an absolute path; write it from the root, as the engine's host resolves bind mounts from there`,
      );
    }
  };
  if (options.runtimeDir === undefined) throw new UsageError("--runtime-dir is missing; name the directory that holds the Staging Directory");
  absolute("--runtime-dir", options.runtimeDir);
  absolute("secretsDirectory", options.secretsDirectory);
  absolute("codexLoginDirectory", options.codexLoginDirectory);
  if (typeof options.image !== "string" || options.image.trim() === "" || options.image.startsWith("-")) {
    throw new UsageError(`--image ${JSON.stringify(options.image)} is not an image reference; write one such as ${JSON.stringify(AGENT_IMAGE)}`);
  }
  if (typeof options.stream?.write !== "function") throw new UsageError("doctor's stream cannot be written to; pass a writable stream such as process.stdout");
  for (const flag of ["color", "json"] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== "boolean")
      throw new UsageError(`doctor option ${flag} ${JSON.stringify(options[flag])} is not a boolean; pass true or false`);
  }
}
