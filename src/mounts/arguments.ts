// The one place a Mount Table becomes bind mounts: `--mount` words for `docker run` and Engine
// API mounts for the create body. Both go through resolveBinds, so they cannot disagree on a
// source, a target or read-only. Always type=bind through --mount, never -v (which would create
// a missing source on the host and splits its value on ":"). A volume of a Run's own (its bounded
// out/) renders here too, as type=volume.
import { posix } from "node:path";
import { normalizePath, type MountTable } from "./mount.js";
import { validateMountTable } from "./validate.js";

/** One entry of the Engine API create body's HostConfig.Mounts. */
export type MountSpec = {
  /** A bind of the Staging Directory, or (a Run's bounded out/) a volume the runtime made for the Run. */
  readonly Type: "bind" | "volume";
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

/** A volume the engine holds, mounted writable at one path inside the container (a Run's own out/). */
/** A named volume at agentPath; readOnly (default false) for what the agent may only read, its inputs. */
export type VolumeMount = { readonly volume: string; readonly agentPath: string; readonly readOnly?: boolean };

/** `--mount type=volume,source=…,target=…` words, one pair per volume, in order. */
export function volumeMountArguments(volumes: readonly VolumeMount[]): string[] {
  return volumes.flatMap(({ volume, agentPath, readOnly }) => [
    "--mount",
    ["type=volume", csvField(`source=${volume}`), csvField(`target=${normalizePath(agentPath)}`), ...(readOnly === true ? ["readonly"] : [])].join(","),
  ]);
}

/** The same volumes as volumeMountArguments, in the Engine API's form. */
export function volumeMountSpecs(volumes: readonly VolumeMount[]): MountSpec[] {
  return volumes.map(({ volume, agentPath, readOnly }) => ({ Type: "volume", Source: volume, Target: normalizePath(agentPath), ReadOnly: readOnly === true }));
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
