// agentcage's version, read from its package.json: the one place it is read, for the command's
// --version and the service's GET /v1/service alike. The file sits two levels above this one, in
// src/ and in dist/ alike; a tree without it (a bundle) answers "unknown", never a throw.

import { readFileSync } from "node:fs";

let known: string | undefined;

/** agentcage's version, as its package.json says; read once, on the first call. */
export function agentcageVersion(): string {
  known ??= readVersion();
  return known;
}

function readVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof version === "string" ? version : "unknown";
  } catch {
    return "unknown";
  }
}
