// Hides registered secret values (every env value, every credential) in any text the project
// writes: log lines, records, error messages, Outcomes. Env values never enter an argv at all
// (see src/container/render-cli.ts); this is the second line, for what an agent or an engine prints back.

import { MIN_MASKED_VALUE_LENGTH } from "./limits.js";

/** What a secret value is replaced with. */
export const REDACTED = "[REDACTED]";

/** Replaces registered secret values in text; values too short to be credentials are ignored. */
export type Masker = {
  readonly add: (value: string) => void;
  readonly mask: (text: string) => string;
  /** Masks every string and byte array inside a JSON-like value, keys included; other class instances pass as they are. */
  readonly maskDeep: <T>(value: T) => T;
  /** Length of the longest registered secret (0 when none), for maskers of streams. */
  readonly longest: () => number;
};

export function createMasker(initial: Iterable<string> = []): Masker {
  const secrets = new Set<string>();
  let ordered: string[] = [];
  let orderedBytes: Buffer[] = [];
  const REDACTED_BYTES = Buffer.from(REDACTED);
  const add = (value: string): void => {
    if (value.length < MIN_MASKED_VALUE_LENGTH || secrets.has(value)) return;
    secrets.add(value);
    // Also its escaped spelling, as it appears inside JSON (and Go's %q) when quoted by someone else.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) secrets.add(escaped);
    // Longest first, so a secret that contains another is hidden whole.
    ordered = [...secrets].sort((a, b) => b.length - a.length);
    orderedBytes = ordered.map((secret) => Buffer.from(secret));
  };
  for (const value of initial) add(value);
  const mask = (text: string): string => {
    let result = text;
    for (const secret of ordered) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return result;
  };
  const maskBytes = (bytes: Uint8Array): Buffer => {
    let result = Buffer.from(bytes);
    for (const secret of orderedBytes) {
      const parts: Buffer[] = [];
      let from = 0;
      for (let at = result.indexOf(secret); at !== -1; at = result.indexOf(secret, from)) {
        parts.push(result.subarray(from, at), REDACTED_BYTES);
        from = at + secret.length;
      }
      if (parts.length > 0) result = Buffer.concat([...parts, result.subarray(from)]);
    }
    return result;
  };
  const maskDeep = <T>(value: T): T => {
    if (ordered.length === 0) return value;
    if (typeof value === "string") return mask(value) as T;
    if (value instanceof Uint8Array) return maskBytes(value) as T;
    if (value instanceof Error) return Object.assign(new Error(mask(value.message)), { name: value.name }) as T;
    if (Array.isArray(value)) return value.map((item) => maskDeep(item)) as T;
    if (value !== null && typeof value === "object") {
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskDeep(v)])) as T;
      }
    }
    return value;
  };
  return { add, mask, maskDeep, longest: () => ordered[0]?.length ?? 0 };
}
