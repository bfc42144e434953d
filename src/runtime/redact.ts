// Hides what must never be logged: env values smuggled into argv through extraArgs (every form
// docker accepts), and any registered secret value in any text the project writes.

import { MIN_MASKED_VALUE_LENGTH } from "./limits.js";

export const REDACTED = "[REDACTED]";

/** Hides the value of every `-e K=V`, `--env K=V`, `--env=K=V` and `-eK=V` in a word list. */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if ((word === "-e" || word === "--env") && i + 1 < args.length) {
      out.push(word, hideValue(args[i + 1] as string));
      i++;
    } else if (word.startsWith("--env=")) {
      out.push(`--env=${hideValue(word.slice("--env=".length))}`);
    } else if (word.startsWith("-e") && !word.startsWith("--") && word.length > 2) {
      out.push(`-e${hideValue(word.slice(2))}`);
    } else {
      out.push(word);
    }
  }
  return out;
}

function hideValue(assignment: string): string {
  const eq = assignment.indexOf("=");
  return eq === -1 ? assignment : `${assignment.slice(0, eq)}=${REDACTED}`;
}

/** Replaces registered secret values in text; values too short to be credentials are ignored. */
export type Masker = {
  readonly add: (value: string) => void;
  readonly mask: (text: string) => string;
  /** Masks every string inside a JSON-like value, keys included. */
  readonly maskDeep: <T>(value: T) => T;
};

export function createMasker(initial: Iterable<string> = []): Masker {
  const secrets = new Set<string>();
  let ordered: string[] = [];
  const add = (value: string): void => {
    if (value.length < MIN_MASKED_VALUE_LENGTH || secrets.has(value)) return;
    secrets.add(value);
    // Longest first, so a secret that contains another is hidden whole.
    ordered = [...secrets].sort((a, b) => b.length - a.length);
  };
  for (const value of initial) add(value);
  const mask = (text: string): string => {
    let result = text;
    for (const secret of ordered) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return result;
  };
  const maskDeep = <T>(value: T): T => {
    if (ordered.length === 0) return value;
    if (typeof value === "string") return mask(value) as T;
    if (Array.isArray(value)) return value.map((item) => maskDeep(item)) as T;
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskDeep(v)])) as T;
    }
    return value;
  };
  return { add, mask, maskDeep };
}
