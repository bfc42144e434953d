// Questions about the engine itself (its version and runtimes, an image, a container's mounts),
// asked through the library so the service and the command never touch the engine. Each is
// bounded in time; what the engine answers or fails to answer is a value, never a throw.

import type Docker from "dockerode";
import {
  connectionTroubleKind,
  createDockerEngine,
  describeEngineError,
  type ContainerMount,
  type Engine,
  type EngineFacts,
  type ImageFacts,
} from "../engine/index.js";
import { ENGINE_QUESTION_TIMEOUT_MS } from "./limits.js";
import { bounded, describeValue, RunRequestError } from "../runtime/index.js";

/** Which engine to ask: the default Docker engine through `docker`, or an engine; not both. */
export type EngineConnection = {
  /** Default: dockerode's own connection (DOCKER_HOST, else the local socket). */
  readonly docker?: Docker;
  /** Default: Docker through `docker`. */
  readonly engine?: Engine;
};

/** The engine's failure: its own words and what to do, and the socket error's code when there was one (ECONNREFUSED, EACCES, ...). */
export type EngineFailure = {
  readonly ok: false;
  readonly error: string;
  readonly code?: string;
  /** TLS's or ssh's refusal, when it was one: what a fix must mend (the certificates, or known_hosts and the keys). */
  readonly trouble?: "tls" | "ssh";
};

export type EngineReport = { readonly ok: true; readonly facts: EngineFacts } | EngineFailure;
/** `facts` is undefined when the engine does not hold the image (nothing is pulled). */
export type ImageReport = { readonly ok: true; readonly facts: ImageFacts | undefined } | EngineFailure;
/** `mounts` is undefined when the engine knows no such container. */
export type MountsReport = { readonly ok: true; readonly mounts: readonly ContainerMount[] | undefined } | EngineFailure;

const CONNECTION_NAMES = ["docker", "engine"];
/** How bounded() words an engine that did not answer in time. */
const SILENT_ENGINE = "the engine did not answer";

/** The engine a connection names, or a RunRequestError naming what is wrong with it. */
export function engineOf(call: string, connection: unknown): Engine {
  if (typeof connection !== "object" || connection === null || Array.isArray(connection)) {
    throw new RunRequestError(`${call}'s options ${describeValue(connection)} is not an object; pass { docker } or { engine }, or leave it out`);
  }
  const unknown = Object.keys(connection).filter((key) => !CONNECTION_NAMES.includes(key));
  if (unknown.length > 0) throw new RunRequestError(`${call} option ${JSON.stringify(unknown[0])} is not one it knows; use docker or engine`);
  const { docker, engine } = connection as EngineConnection;
  if (docker !== undefined && engine !== undefined) throw new RunRequestError(`${call} was given both engine and docker; pass one, not both`);
  if (engine !== undefined && (typeof engine !== "object" || engine === null || typeof engine.facts !== "function")) {
    throw new RunRequestError(`${call}'s engine ${describeValue(engine)} is not an Engine; pass createDockerEngine(...) or leave it out`);
  }
  return engine ?? createDockerEngine(docker);
}

function failure(step: string, error: unknown, image = ""): EngineFailure {
  if (error instanceof Error && error.message.startsWith(SILENT_ENGINE)) {
    return { ok: false, error: `${error.message}; check that it runs and answers (docker info), or point DOCKER_HOST at one that does` };
  }
  const code = (error as { code?: unknown } | null)?.code;
  const trouble = connectionTroubleKind(error);
  return {
    ok: false,
    error: describeEngineError(step, error, image),
    ...(typeof code === "string" ? { code } : {}),
    ...(trouble === undefined ? {} : { trouble }),
  };
}

/** The engine's version, runtimes and components; a failure says why and what to do. */
export async function inspectEngine(connection: EngineConnection = {}, ...extra: never[]): Promise<EngineReport> {
  if (extra.length > 0) throw new RunRequestError(`inspectEngine takes one argument, { docker } or { engine }; ${extra.length} more were given`);
  const engine = engineOf("inspectEngine", connection);
  try {
    return { ok: true, facts: await bounded(engine.facts(), ENGINE_QUESTION_TIMEOUT_MS, "its version") };
  } catch (error) {
    return failure("version", error);
  }
}

/** What the engine holds of `image`, or that it holds nothing of it; nothing is pulled. */
export async function inspectImage(image: string, connection: EngineConnection = {}, ...extra: never[]): Promise<ImageReport> {
  if (extra.length > 0) throw new RunRequestError(`inspectImage takes (image, { docker } or { engine }); ${extra.length} more arguments were given`);
  if (typeof image !== "string" || image.trim() === "")
    throw new RunRequestError(`image ${describeValue(image)} is not an image reference; write one such as "agentcage-agent:latest"`);
  const engine = engineOf("inspectImage", connection);
  try {
    return { ok: true, facts: await bounded(engine.inspectImage(image), ENGINE_QUESTION_TIMEOUT_MS, `about image ${JSON.stringify(image)}`) };
  } catch (error) {
    return failure("image inspect", error, image);
  }
}

/** A container's mounts, their sources as the engine's host sees them (this process's own container, say). */
export async function containerMounts(idOrName: string, connection: EngineConnection = {}, ...extra: never[]): Promise<MountsReport> {
  if (extra.length > 0) throw new RunRequestError(`containerMounts takes (idOrName, { docker } or { engine }); ${extra.length} more arguments were given`);
  if (typeof idOrName !== "string" || idOrName.trim() === "")
    throw new RunRequestError(`idOrName ${describeValue(idOrName)} is not a container id or name; write one`);
  const engine = engineOf("containerMounts", connection);
  try {
    return { ok: true, mounts: await bounded(engine.mountsOf(idOrName), ENGINE_QUESTION_TIMEOUT_MS, `about container ${JSON.stringify(idOrName)}`) };
  } catch (error) {
    return failure("container inspect", error);
  }
}
