// The Agent Container declaration and the one place it is validated. A declaration that cannot
// mean anything throws here, at construction, with the offending value quoted; never an env value.

import { z } from "zod";
import type { Logger } from "pino";
import { AgentcageError, issueSentence, knownKeys, valueAt } from "../errors/index.js";
import { type MountTable, validateMountTable } from "../mounts/index.js";
import { MIN_MASKED_VALUE_LENGTH } from "../redact/index.js";
import { ENV_NAME, parseExtraArgs, RESERVED_LABEL_PREFIX, type ExtraOptions } from "./extra-args.js";
import {
  MAX_CPUS,
  MAX_MEMORY_BYTES,
  MAX_PIDS_LIMIT,
  MAX_RETENTION_DAYS,
  MAX_STOP_GRACE_SECONDS,
  MAX_TIMEOUT_SECONDS,
  MAX_TMPFS_BYTES,
  MIN_MEMORY_BYTES,
  MIN_PIDS_LIMIT,
  MIN_TIMEOUT_SECONDS,
  MIN_TMPFS_BYTES,
} from "./limits.js";

/** What one Run's container may use (memory, CPUs, processes, /tmp, the grace to stop); each left out takes the default its comment gives. */
export type ContainerLimits = {
  /** Memory and memory+swap, in bytes; default 2 GiB (`DEFAULT_MEMORY_BYTES`), no swap on top. */
  readonly memoryBytes?: number;
  /** CPUs as a fraction (1.5 = one and a half cores); default: no CPU limit. */
  readonly cpus?: number;
  /** Processes and threads; default 256, enough for an agent and its tools, not for a fork bomb. */
  readonly pids?: number;
  /** Size of the tmpfs at /tmp, in bytes; default 256 MiB. */
  readonly tmpfsBytes?: number;
  /** Seconds between SIGTERM and SIGKILL when a Run is stopped; default 10. */
  readonly stopGraceSeconds?: number;
};

/** A per-Run workspace under the Staging Directory (see src/staging). */
export type StagingDeclaration = {
  /** The Staging Directory: absolute, on the host the daemon runs on. Each Run gets `<runtimeDir>/<runId>/`. */
  readonly runtimeDir: string;
  /** Where the agent sees `work/`; default "/work", with `out/` inside it. */
  readonly agentWorkdir?: string;
  /** Mount all of `work/` writable (the agent edits a copy, harvested whole); default false: only `out/`. */
  readonly writableWork?: boolean;
  /** Keep each Run directory (record included) after the Run, for `keptRunRetentionDays`; default false. */
  readonly keepRuns?: boolean;
  /**
   * Whole days a kept Run directory (keepRuns) outlives its Run's start; the next sweep past it removes
   * it. 1 to MAX_RETENTION_DAYS; default DEFAULT_KEPT_RUN_RETENTION_DAYS (1), enough to read what happened.
   */
  readonly keptRunRetentionDays?: number;
  /**
   * Whole days a kept session store outlives its last use (the last Run that resumed or kept it); the
   * next sweep past it removes it. 1 to MAX_RETENTION_DAYS; default DEFAULT_SESSION_RETENTION_DAYS (30).
   * The stores of one Staging Directory are shared: the shortest retention declared on it wins.
   */
  readonly sessionRetentionDays?: number;
  /**
   * Bytes the agent may write (in out/, or in work/ beyond its inputs); past it writes fail and the
   * Run ends as `write_limit`. Enforced by a tmpfs of that size, which needs this process to be root
   * on the daemon's host; default 256 MiB.
   */
  readonly writableBytes?: number;
};

/** Where a staged Run's agent sees its `work/` unless `staging.agentWorkdir` says otherwise. */
export const DEFAULT_AGENT_WORKDIR = "/work";

/** The staged workspace's path inside the container, or undefined when the declaration stages nothing. */
export function agentWorkdirOf(container: Pick<AgentContainer, "staging">): string | undefined {
  return container.staging === undefined ? undefined : (container.staging.agentWorkdir ?? DEFAULT_AGENT_WORKDIR);
}

/**
 * The declaration of the container every Run starts from: image, mounts, staging, limits, networks.
 * Written once by the Operator and checked at construction; each default is the locked-down one.
 */
export type AgentContainer = {
  /** Image reference; must exist locally, nothing is pulled. */
  readonly image: string;
  /** What the container can reach on disk; default: nothing (or only the Run's workspace, with staging). */
  readonly mounts?: MountTable;
  /** Give every Run a staged workspace and a record on disk; default: none. With `mounts`, both name one runtimeDir. */
  readonly staging?: StagingDeclaration;
  /** Replaces the image's entrypoint; default: the image's own. */
  readonly entrypoint?: readonly string[];
  /** Networks to join; default: none at all (`--network none`). */
  readonly networks?: readonly string[];
  /** Environment for the agent. Values are treated as secrets: never in argv, masked in every record. */
  readonly env?: Readonly<Record<string, string>>;
  /** Environment whose values are not secret (PATH, LANG): written into argv as NAME=value and never masked. */
  readonly publicEnv?: Readonly<Record<string, string>>;
  /** uid[:gid] or a name; default: this process's uid:gid, or 10002:10002 when that is root. Never uid 0. */
  readonly user?: string;
  /** Working directory inside the container; default: the image's own. */
  readonly workdir?: string;
  readonly limits?: ContainerLimits;
  /** Default per-Run timeout; default 1 h. A call may override it. */
  readonly timeoutSeconds?: number;
  /** Extra labels; the `agentcage.` prefix is reserved. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Names this orchestrator on every container, so `sweep()` finds what a crashed one left; default "agentcage". Two live processes must not share one. */
  readonly owner?: string;
  /** Spliced last into the CLI rendering; only flags run() can mirror are accepted. */
  readonly extraArgs?: readonly string[];
  /**
   * The container runtime the engine runs this container with, as the engine registered it: "runsc"
   * (gVisor) or a Kata runtime for a stronger sandbox; default: the engine's default (runc). A
   * runtime the engine does not have ends each Run as unavailable, naming it.
   */
  readonly containerRuntime?: string;
  /** The client `commandFor` names; default ["docker"]; ["podman"] works. */
  readonly containerCommand?: readonly string[];
  /** Where the runtime logs; default: nowhere (a silent pino), so a program that embeds the library prints nothing it did not ask for. */
  readonly logger?: Logger;
};

/** Thrown at construction for an Agent Container declaration that cannot mean anything; the message names the field and quotes its value. */
export class AgentContainerError extends AgentcageError {
  override readonly name = "AgentContainerError";
  readonly code = "invalid_agent_container";
}

const word = (what: string) =>
  z.string().refine((s) => s.length > 0 && s.trim() === s && !s.includes("\0"), {
    error: (issue) => `${what} ${JSON.stringify(issue.input)} is empty or has surrounding space; write a non-empty word`,
  });

const words = (what: string) => z.array(word(what)).min(1, { error: `${what} is an empty list; leave it out to use the default` });

const intIn = (what: string, min: number, max: number) =>
  z.number().refine((n) => Number.isInteger(n) && n >= min && n <= max, {
    error: (issue) => `${what} ${JSON.stringify(issue.input)} is out of range; write a whole number from ${min} to ${max}`,
  });

/** A retention in days: quoted as given when it is not one (a string from an environment variable, NaN, 1.5). */
const days = (what: string) =>
  z.unknown().refine((n) => typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= MAX_RETENTION_DAYS, {
    error: (issue) =>
      `${what} ${describeDays(issue.input)} is not a whole number of days from 1 to ${MAX_RETENTION_DAYS}; write how many days to keep, e.g. 30`,
  });

function describeDays(value: unknown): string {
  return typeof value === "number" && !Number.isFinite(value) ? String(value) : (JSON.stringify(value) ?? String(value));
}

/** A uid or gid: digits, or a name that starts with a letter or _ (never "-", which runc would read as a number). */
const ID = "(?:\\d+|[A-Za-z_][A-Za-z0-9_.-]*)";
const USER = new RegExp(`^(${ID})(?::(${ID}))?$`);
const OWNER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
/** A runtime's name as engines register them (runsc, kata-runtime, io.containerd.runc.v2). */
const RUNTIME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** uid 0, by number or by the name root. (gid 0 stays allowed: some platforms run any uid with gid 0.) */
function isRoot(user: string): boolean {
  const uid = USER.exec(user)?.[1];
  return uid !== undefined && (uid === "root" || /^0+$/.test(uid));
}

/**
 * A record of environment variables. Names are checked here rather than by a key schema, so the
 * message can quote the name (zod 4 says only "Invalid key in record"); `nulMessage` decides
 * whether a bad value may be quoted (never for `env`, whose values are secrets).
 */
function environment(what: string, value: z.ZodString, nulMessage: (value: unknown) => string) {
  return z
    .record(
      z.string(),
      value.refine((v) => !v.includes("\0"), { error: (issue) => nulMessage(issue.input) }),
    )
    .superRefine((env, ctx) => {
      for (const name of Object.keys(env)) {
        if (!ENV_NAME.test(name)) {
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: `${what} name ${JSON.stringify(name)} is not a POSIX name; use letters, digits and _, not starting with a digit`,
          });
        }
      }
    });
}

const schema = z.strictObject({
  image: word("image").refine((s) => !s.startsWith("-"), {
    error: (issue) => `image ${JSON.stringify(issue.input)} starts with "-"; write an image reference such as "agent:1"`,
  }),
  mounts: z.custom<MountTable>((v) => typeof v === "object" && v !== null, { error: "mounts is not a Mount Table; write { runtimeDir, entries }" }).optional(),
  staging: z
    .strictObject({
      runtimeDir: z.string(),
      agentWorkdir: z
        .string()
        .refine((p) => p.startsWith("/") && p !== "/", {
          error: (issue) =>
            `staging.agentWorkdir ${JSON.stringify(issue.input)} is not an absolute directory below "/"; write the path the agent sees, like "/work"`,
        })
        .optional(),
      writableWork: z.boolean().optional(),
      keepRuns: z.boolean().optional(),
      keptRunRetentionDays: days("staging.keptRunRetentionDays").optional(),
      sessionRetentionDays: days("staging.sessionRetentionDays").optional(),
      writableBytes: intIn("staging.writableBytes", MIN_TMPFS_BYTES, MAX_TMPFS_BYTES).optional(),
    })
    .optional(),
  entrypoint: words("entrypoint word").optional(),
  networks: words("network")
    .refine((list) => !list.includes("host"), { error: "network \"host\" would share the host's network; declare a network of the agent's own" })
    .refine((list) => list.length === 1 || !list.some((n) => n === "none" || n.startsWith("container:")), {
      error: (issue) => `networks ${JSON.stringify(issue.input)} mix "none" or "container:<id>" with others; either stands alone`,
    })
    .optional(),
  env: environment(
    "env",
    z.string({ error: "env value is not a string; write every value as a string" }),
    () => "env value holds a NUL byte, which no environment can carry; remove it",
  ).optional(),
  publicEnv: environment("publicEnv", z.string(), (value) => `publicEnv value ${JSON.stringify(value)} holds a NUL byte; remove it`).optional(),
  user: z
    .string()
    .regex(USER, { error: (issue) => `user ${JSON.stringify(issue.input)} is not uid[:gid] or a name; write it like "10002:10002"` })
    .refine((u) => !isRoot(u), {
      error: (issue) => `user ${JSON.stringify(issue.input)} is uid 0; an agent never runs as root, write a non-zero uid such as "10002:10002"`,
    })
    .optional(),
  workdir: z
    .string()
    .refine((s) => s.startsWith("/"), {
      error: (issue) => `workdir ${JSON.stringify(issue.input)} is not absolute; write the path the agent sees inside its container`,
    })
    .optional(),
  limits: z
    .strictObject({
      memoryBytes: intIn("limits.memoryBytes", MIN_MEMORY_BYTES, MAX_MEMORY_BYTES).optional(),
      cpus: z
        .number()
        .refine((n) => Number.isFinite(n) && n >= 0.01 && n <= MAX_CPUS, {
          error: (issue) => `limits.cpus ${JSON.stringify(issue.input)} is out of range; write a number from 0.01 to ${MAX_CPUS}`,
        })
        .optional(),
      pids: intIn("limits.pids", MIN_PIDS_LIMIT, MAX_PIDS_LIMIT).optional(),
      tmpfsBytes: intIn("limits.tmpfsBytes", MIN_TMPFS_BYTES, MAX_TMPFS_BYTES).optional(),
      stopGraceSeconds: intIn("limits.stopGraceSeconds", 0, MAX_STOP_GRACE_SECONDS).optional(),
    })
    .optional(),
  timeoutSeconds: intIn("timeoutSeconds", MIN_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS).optional(),
  labels: z
    .record(z.string(), z.string())
    .superRefine((labels, ctx) => {
      for (const key of Object.keys(labels)) {
        if (key.length === 0 || key.startsWith(RESERVED_LABEL_PREFIX) || key.includes("=")) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `label ${JSON.stringify(key)} is empty, holds "=", or uses the reserved "${RESERVED_LABEL_PREFIX}" prefix; choose another name`,
          });
        }
      }
    })
    .optional(),
  owner: z
    .string()
    .regex(OWNER, { error: (issue) => `owner ${JSON.stringify(issue.input)} is not a short name; use letters, digits, ".", "_" and "-"` })
    .optional(),
  extraArgs: z.array(z.string()).optional(),
  containerRuntime: z
    .string()
    .regex(RUNTIME_NAME, {
      error: (issue) =>
        `containerRuntime ${JSON.stringify(issue.input)} is not a runtime name; write the name the engine registered it under, e.g. "runsc" (docker info lists them)`,
    })
    .optional(),
  containerCommand: words("containerCommand word").optional(),
  logger: z
    .custom<Logger>((v) => typeof v === "object" && v !== null && typeof (v as Logger).info === "function" && typeof (v as Logger).child === "function", {
      error: "logger is not a pino logger; pass pino() or leave it out",
    })
    .optional(),
});

/** A declaration that passed validation, with extraArgs already parsed. */
export type ValidatedContainer = AgentContainer & { readonly extra: ExtraOptions };

/** Validates a declaration; throws AgentContainerError naming every problem found. */
export function validateAgentContainer(input: unknown): ValidatedContainer {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = issue.path.length > 0 ? issue.path.map(String).join(".") : "the declaration";
      // A declaration holds secrets (env, secret files): a refusal names the field, never what it held.
      const sentence = issueSentence(issue, {
        name,
        value: valueAt(input, issue.path),
        shown: false,
        taker: issue.path.length === 0 ? "an Agent Container" : name,
        keyKind: issue.path.length === 0 ? "field" : `${name}'s field`,
        known: knownKeys(schema, issue.path),
      });
      // The schema's own words do not say where: the path does.
      return sentence === issue.message ? `${name}: ${sentence}` : sentence;
    });
    throw new AgentContainerError(`Agent Container is invalid: ${lines.join("; ")}`);
  }
  // A private, frozen copy: changing the caller's object later cannot change a Run (or unmask a secret).
  const { logger, ...plain } = input as AgentContainer;
  // The logger stays the caller's own, unfrozen: it is an object with state, not a declaration.
  const container: AgentContainer = { ...deepFreeze(structuredClone(plain)), ...(logger === undefined ? {} : { logger }) };
  try {
    if (container.mounts !== undefined) validateMountTable(container.mounts);
    const both = Object.keys(container.publicEnv ?? {}).filter((name) => Object.hasOwn(container.env ?? {}, name));
    if (both.length > 0) throw new Error(`${JSON.stringify(both[0])} is in both env and publicEnv; a value is either secret or not, keep it in one`);
    const unmaskable = unmaskableSecret([...Object.entries(container.env ?? {}), ...parseExtraArgs(container.extraArgs ?? []).env]);
    if (unmaskable !== undefined) throw new Error(unmaskable);
    const staging = container.staging;
    if (staging !== undefined) {
      validateMountTable({ runtimeDir: staging.runtimeDir, entries: [] });
      if (container.mounts !== undefined && container.mounts.runtimeDir !== staging.runtimeDir) {
        throw new Error(
          `mounts.runtimeDir ${JSON.stringify(container.mounts.runtimeDir)} differs from staging.runtimeDir ${JSON.stringify(staging.runtimeDir)}; one runtime has one Staging Directory, write the same path in both`,
        );
      }
    }
    return Object.freeze({ ...container, extra: deepFreeze(parseExtraArgs(container.extraArgs ?? [])) });
  } catch (error) {
    throw new AgentContainerError(`Agent Container is invalid: ${(error as Error).message}`, { cause: error });
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * A secret value too short to be masked cannot be promised to stay out of every record: refuse it
 * where it is declared (empty values hide nothing and reveal nothing, so they pass). Never quotes the value.
 */
export function unmaskableSecret(entries: ReadonlyArray<readonly [string, string]>): string | undefined {
  const short = entries.find(([, value]) => value.length > 0 && value.length < MIN_MASKED_VALUE_LENGTH);
  if (short === undefined) return undefined;
  return `env value of ${short[0]} is ${short[1].length} character(s), too short to be masked in records and logs (MIN_MASKED_VALUE_LENGTH is ${MIN_MASKED_VALUE_LENGTH}); a value that is not secret belongs in publicEnv`;
}
