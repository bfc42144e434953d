// The one place a Mount Table becomes bind mounts: `--mount` words for `docker run` and Engine
// API mounts for the create body. Both go through resolveBinds, so they cannot disagree on a
// source, a target or read-only. Always type=bind through --mount, never -v (which would create
// a missing source on the host and splits its value on ":").
import { posix } from "node:path";
import { normalizePath, type MountTable } from "./mount.js";
import { validateMountTable } from "./validate.js";

/** One entry of the Engine API create body's HostConfig.Mounts. */
export type MountSpec = {
  readonly Type: "bind";
  readonly Source: string;
  readonly Target: string;
  readonly ReadOnly: boolean;
};

type Bind = { readonly source: string; readonly target: string; readonly readOnly: boolean };

/** `["--mount", "type=bind,source=…,target=…[,readonly]", …]`, one pair per entry, in order. */
export function mountArguments(table: MountTable): string[] {
  return resolveBinds(table).flatMap(({ source, target, readOnly }) => {
    const fields = ["type=bind", csvField(`source=${source}`), csvField(`target=${target}`)];
    if (readOnly) fields.push("readonly");
    return ["--mount", fields.join(",")];
  });
}

/** The same binds as mountArguments, in the Engine API's form. */
export function mountSpecs(table: MountTable): MountSpec[] {
  return resolveBinds(table).map(({ source, target, readOnly }) => ({
    Type: "bind",
    Source: source,
    Target: target,
    ReadOnly: readOnly,
  }));
}

function resolveBinds(table: MountTable): Bind[] {
  validateMountTable(table);
  return table.entries.map((entry) => ({
    source: normalizePath(posix.join(table.runtimeDir, entry.path)),
    target: normalizePath(entry.agentPath),
    readOnly: entry.readOnly ?? false,
  }));
}

/**
 * Quotes a `key=value` field the way docker's --mount parser (Go's encoding/csv) reads it back.
 * A line break is quoted too: unquoted, it would end the record and silently drop `readonly`.
 */
function csvField(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}
