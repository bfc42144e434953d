// Each Run's own masker: the declaration's secret values plus what this Run brought (its env, its
// secret files, the values its adapter named). Built per Run, so a long-lived process neither
// grows one masker forever nor masks one caller's secret in another caller's output.

import type { ValidatedContainer } from "../container/index.js";
import { createMasker, type Masker } from "../redact/index.js";
import type { RunOptions } from "./runtime.js";

/** The declaration's secret values, once per runtime. */
export function declaredSecrets(container: ValidatedContainer): readonly string[] {
  return [...Object.values(container.env ?? {}), ...container.extra.env.map(([, value]) => value)];
}

export function runMasker(declared: readonly string[], run: Pick<RunOptions, "env" | "secretFiles" | "secrets">): Masker {
  return createMasker([
    ...declared,
    ...Object.values(run.env ?? {}),
    ...(run.secretFiles ?? []).map((file) => secretText(file.content)),
    ...(run.secrets ?? []),
  ]);
}

/** A secret file's content as the text the masker looks for (bytes read as UTF-8). */
function secretText(content: string | Uint8Array): string {
  return typeof content === "string" ? content : Buffer.from(content).toString("utf8");
}
