// Hides registered secret values (every env value, every credential) in any text the project
// writes: log lines, records, error messages, Outcomes. Values smuggled into argv through
// extraArgs are hidden where they are parsed, in extra-args.ts.

import { MIN_MASKED_VALUE_LENGTH } from "./limits.js";

import { REDACTED } from "./extra-args.js";

export { REDACTED };

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
