/**
 * Mount Table: what the Agent Container can reach on disk, one bind mount per entry, written
 * relative to the Staging Directory. Pure: nothing here touches the disk or the daemon.
 *
 * @example
 * import { mountArguments } from "./mounts/index.js";
 *
 * mountArguments({
 *   runtimeDir: "/srv/agentcage/run-1",
 *   entries: [
 *     { agentPath: "/work", path: "work" },
 *     { agentPath: "/work/config.json", path: "config.json", readOnly: true },
 *   ],
 * });
 * // ["--mount", "type=bind,source=/srv/agentcage/run-1/work,target=/work",
 * //  "--mount", "type=bind,source=/srv/agentcage/run-1/config.json,target=/work/config.json,readonly"]
 */
export type { Mount, MountTable } from "./mount.js";
export type { MountSpec, VolumeMount } from "./arguments.js";
export { MountTableError, validateMountTable } from "./validate.js";
export { mountArguments, mountSpecs, volumeMountArguments, volumeMountSpecs } from "./arguments.js";
