// Each Run's own masker: the declaration's secret values plus what this Run brought (its env, its
// secret files, the values its adapter named). Built per Run, so a long-lived process neither
// grows one masker forever nor masks one caller's secret in another caller's output.
// A secret file is masked whole and by the tokens inside it (each line, each JSON string value),
// since an agent may print one token of a login file without the rest.

import type { ValidatedContainer } from "../../container/index.js";
import { createMasker, type Masker } from "../../redact/index.js";
import type { RunOptions } from "./run-options.js";

/** The declaration's secret values, once per runtime. */
export function declaredSecrets(container: ValidatedContainer): readonly string[] {
  return [...Object.values(container.env ?? {}), ...container.extra.env.map(([, value]) => value)];
}

export function runMasker(declared: readonly string[], run: Pick<RunOptions, "env" | "secretFiles" | "secrets" | "tmpfsSecrets">): Masker {
  return createMasker([
    ...declared,
    ...Object.values(run.env ?? {}),
    ...Object.values(run.tmpfsSecrets ?? {}),
    ...(run.secretFiles ?? []).flatMap((file) => secretFileValues(secretText(file.content))),
    ...(run.secrets ?? []),
  ]);
}

/** What of a secret file's text is masked: all of it, each non-empty line trimmed, and, when it is JSON, every string in it. */
export function secretFileValues(text: string): string[] {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return [text, ...lines, ...jsonStrings(text)];
}

/**
 * The string values (not keys) of a JSON text that may be credentials, at any depth: under a key
 * that says so (token, key, secret, pass, cred), or long enough to be one. A short plain value
 * ("chatgpt" in a login's auth_mode) is not: masking it would garble the agent's own answers.
 * None when the text is not JSON.
 */
function jsonStrings(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  // A stack, not recursion: a deeply nested file must not overflow the call stack.
  const found: string[] = [];
  const pending: Array<readonly [string, unknown]> = [["", parsed]];
  while (pending.length > 0) {
    const [key, value] = pending.pop() as readonly [string, unknown];
    if (typeof value === "string") {
      if (SECRET_KEY.test(key) || value.length >= LONG_JSON_VALUE_CHARACTERS) found.push(value);
    } else if (value !== null && typeof value === "object") {
      for (const [innerKey, inner] of Object.entries(value)) pending.push([Array.isArray(value) ? key : innerKey, inner]);
    }
  }
  return found;
}

/** A JSON key under which a string is taken for a credential. */
const SECRET_KEY = /token|key|secret|pass|cred/i;
/** A JSON string this long is masked under any key: it may be a credential. */
const LONG_JSON_VALUE_CHARACTERS = 20;

/** A secret file's content as the text the masker looks for (bytes read as UTF-8). */
function secretText(content: string | Uint8Array): string {
  return typeof content === "string" ? content : Buffer.from(content).toString("utf8");
}
