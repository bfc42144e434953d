// How the Docker Engine API's own words (/version, /info, an image's and a container's inspect, a
// container's stats) read as the engine seam's facts. Pure, and forgiving: an engine that leaves a field out (podman's
// Docker-compatible API, an older daemon) gets "" or [] there, never a throw.

import type { ContainerMount, EngineComponent, EngineFacts, EngineRuntime, ImageFacts } from "./engine.js";

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === "string" ? value : typeof value === "number" ? String(value) : "");
const object = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The engine's facts from the bodies of GET /version and GET /info. */
export function engineFactsOf(versionBody: unknown, infoBody: unknown): EngineFacts {
  const version = object(versionBody);
  const info = object(infoBody);
  const components: EngineComponent[] = list(version["Components"]).map((raw) => {
    const c = object(raw);
    return { name: text(c["Name"]), version: text(c["Version"]), detail: text(object(c["Details"])["GitCommit"]) };
  });
  const runtimes: EngineRuntime[] = Object.entries(object(info["Runtimes"]))
    .map(([name, raw]) => {
      const path = text(object(raw)["path"]);
      return path === "" ? { name } : { name, path };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const platform = text(object(version["Platform"])["Name"]);
  const named = components.find((c) => c.name === "Engine") !== undefined ? "Docker Engine" : components.find((c) => c.name.endsWith("Engine"))?.name;
  return {
    name: platform !== "" ? platform : (named ?? "Engine"),
    serverVersion: text(version["Version"]) || text(info["ServerVersion"]),
    apiVersion: text(version["ApiVersion"]),
    os: text(version["Os"]) || text(info["OSType"]),
    arch: text(version["Arch"]),
    kernelVersion: text(version["KernelVersion"]) || text(info["KernelVersion"]),
    operatingSystem: text(info["OperatingSystem"]),
    defaultRuntime: text(info["DefaultRuntime"]),
    runtimes,
    components,
    securityOptions: list(info["SecurityOptions"])
      .map(text)
      .filter((s) => s !== ""),
    cgroupVersion: text(info["CgroupVersion"]),
  };
}

/** An image's facts from the body of GET /images/{name}/json. */
export function imageFactsOf(inspectBody: unknown): ImageFacts {
  const image = object(inspectBody);
  const labels = Object.fromEntries(Object.entries(object(object(image["Config"])["Labels"])).map(([k, v]) => [k, text(v)]));
  return { id: text(image["Id"]), created: text(image["Created"]), os: text(image["Os"]), arch: text(image["Architecture"]), labels };
}

/** A container's mounts from the body of GET /containers/{id}/json. */
export function containerMountsOf(inspectBody: unknown): ContainerMount[] {
  return list(object(inspectBody)["Mounts"]).map((raw) => {
    const m = object(raw);
    return { source: text(m["Source"]), destination: text(m["Destination"]), readOnly: m["RW"] === false };
  });
}

/**
 * A container's cumulative CPU time (ns) from the body of GET /containers/{id}/stats: undefined for a
 * container that is not running, which the engine answers with a zero reading.
 */
export function cpuNanosOf(statsBody: unknown): number | undefined {
  const total = object(object(object(statsBody)["cpu_stats"])["cpu_usage"])["total_usage"];
  return typeof total === "number" && Number.isFinite(total) && total > 0 ? total : undefined;
}
