// The escape hatch: `extraArgs` are spliced last into the CLI rendering, and run() must mean
// the same thing through the Engine API, so only flags this file can translate are accepted.
// Anything else is refused at construction rather than silently ignored by one rendering.

import { AgentcageError } from "../errors/index.js";

/** Thrown at construction for an `extraArgs` flag that both renderings (the `docker run` words and the Engine API) cannot mean alike. */
export class ExtraArgsError extends AgentcageError {
  override readonly name = "ExtraArgsError";
  readonly code = "invalid_extra_args";
}

/** What the accepted extra flags add to the composed spec; later words override earlier ones. */
export type ExtraOptions = {
  readonly env: ReadonlyArray<readonly [string, string]>;
  readonly labels: ReadonlyArray<readonly [string, string]>;
  readonly workdir?: string;
  readonly hostname?: string;
  readonly addHosts: readonly string[];
  readonly dns: readonly string[];
  readonly stopSignal?: string;
};

type FlagName = "env" | "label" | "workdir" | "hostname" | "add-host" | "dns" | "stop-signal";

const LONG_FLAGS: ReadonlyMap<string, FlagName> = new Map([
  ["--env", "env"],
  ["--label", "label"],
  ["--workdir", "workdir"],
  ["--hostname", "hostname"],
  ["--add-host", "add-host"],
  ["--dns", "dns"],
  ["--stop-signal", "stop-signal"],
]);
const SHORT_FLAGS: ReadonlyMap<string, FlagName> = new Map([
  ["-e", "env"],
  ["-l", "label"],
  ["-w", "workdir"],
  ["-h", "hostname"],
]);

export const SUPPORTED_EXTRA_FLAGS: readonly string[] = [...LONG_FLAGS.keys(), ...SHORT_FLAGS.keys()];

/** A POSIX environment variable name: every env, publicEnv and per-Run env name is checked against it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Labels the runtime owns (run id, owner); nothing declared may set them. */
export const RESERVED_LABEL_PREFIX = "agentcage.";

type FlagPair = {
  readonly flag: FlagName;
  readonly value: string;
  /** The flag word as written; it also holds the value when `attached`. */
  readonly word: string;
  readonly attached: boolean;
};

/** Splits extraArgs into (flag, value) pairs, accepting `--f v`, `--f=v`, `-f v` and `-fv`. */
export function splitExtraArgs(words: readonly string[]): FlagPair[] {
  const pairs: FlagPair[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const eq = word.indexOf("=");
    const longName = word.startsWith("--") ? (eq === -1 ? word : word.slice(0, eq)) : undefined;
    let flag: FlagName | undefined;
    let value: string | undefined;
    const attached = () => value !== undefined;
    if (longName !== undefined) {
      flag = LONG_FLAGS.get(longName);
      if (flag !== undefined && eq !== -1) value = word.slice(eq + 1);
    } else if (word.startsWith("-") && word.length >= 2) {
      flag = SHORT_FLAGS.get(word.slice(0, 2));
      if (flag !== undefined && word.length > 2) value = word.slice(2);
    }
    if (flag === undefined) {
      throw new ExtraArgsError(
        `extraArgs word ${JSON.stringify(word)} is not a flag run() can apply through the Engine API; ` +
          `use one of ${SUPPORTED_EXTRA_FLAGS.join(", ")}, or declare it in the Agent Container instead`,
      );
    }
    const isAttached = attached();
    if (value === undefined) {
      const next = words[i + 1];
      if (next === undefined) {
        throw new ExtraArgsError(`extraArgs flag ${JSON.stringify(word)} has no value; write its value as the next word`);
      }
      value = next;
      i++;
    }
    pairs.push({ flag, value, word, attached: isAttached });
  }
  return pairs;
}

function keyValue(flag: string, value: string, what: string): readonly [string, string] {
  const eq = value.indexOf("=");
  if (eq <= 0) {
    // Never quote an env value: it may be a secret. The name alone is enough to find it.
    const shown = flag === "env" ? JSON.stringify(value.slice(0, Math.max(eq, 0)) || "(no name)") : JSON.stringify(value);
    throw new ExtraArgsError(`extraArgs ${what} ${shown} has no NAME=value form; write it as NAME=value`);
  }
  return [value.slice(0, eq), value.slice(eq + 1)];
}

/** Parses extraArgs into what they add; throws ExtraArgsError for anything run() could not mirror. */
export function parseExtraArgs(words: readonly string[]): ExtraOptions {
  const env: Array<readonly [string, string]> = [];
  const labels: Array<readonly [string, string]> = [];
  const addHosts: string[] = [];
  const dns: string[] = [];
  let workdir: string | undefined;
  let hostname: string | undefined;
  let stopSignal: string | undefined;
  for (const { flag, value } of splitExtraArgs(words)) {
    switch (flag) {
      case "env": {
        const pair = keyValue("env", value, "env entry");
        if (!ENV_NAME.test(pair[0])) {
          throw new ExtraArgsError(`extraArgs env name ${JSON.stringify(pair[0])} is not a POSIX name; use letters, digits and _`);
        }
        env.push(pair);
        break;
      }
      case "label": {
        const pair = keyValue("label", value, "label");
        if (pair[0].startsWith(RESERVED_LABEL_PREFIX)) {
          throw new ExtraArgsError(`extraArgs label ${JSON.stringify(pair[0])} uses the reserved "${RESERVED_LABEL_PREFIX}" prefix; choose another name`);
        }
        labels.push(pair);
        break;
      }
      case "workdir":
        if (!value.startsWith("/")) {
          throw new ExtraArgsError(`extraArgs workdir ${JSON.stringify(value)} is not absolute; write the path the agent sees`);
        }
        workdir = value;
        break;
      case "hostname":
        hostname = value;
        break;
      case "add-host":
        addHosts.push(value);
        break;
      case "dns":
        dns.push(value);
        break;
      case "stop-signal":
        stopSignal = value;
        break;
    }
  }
  return {
    env,
    labels,
    addHosts,
    dns,
    ...(workdir === undefined ? {} : { workdir }),
    ...(hostname === undefined ? {} : { hostname }),
    ...(stopSignal === undefined ? {} : { stopSignal }),
  };
}

/**
 * extraArgs as the CLI rendering splices them: every env assignment (`-e K=V`, `--env K=V`,
 * `--env=K=V`, `-eK=V`) becomes `--env K`, its value moving to the client's environment, so no
 * env value reaches an argv. Parsed exactly as run() parses them.
 */
export function cliExtraArgs(words: readonly string[]): string[] {
  return splitExtraArgs(words).flatMap(({ flag, value, word, attached }) => {
    if (flag === "env") return ["--env", value.includes("=") ? value.slice(0, value.indexOf("=")) : value];
    return attached ? [word] : [word, value];
  });
}
