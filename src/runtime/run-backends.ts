// The one place a Run Backend is chosen, from createAgentContainerRuntime's (or createAgentRunner's)
// options: Kubernetes when `kubernetes` is given, several engines with `engines`, else the one engine
// (`engine`, or Docker through `docker`). Options that name two backends are refused here, by name.
// A caller above the runtime that keeps something of its own per backend (the runner's egress proxy
// placement) gives one of each (PerBackend), and is handed the chosen backend's with it.
// Invariant: every other file asks the chosen backend; none asks which one it is.

import type Docker from "dockerode";
import { AgentContainerError } from "../container/index.js";
import { createDockerEngine, type Engine } from "../engine/index.js";
import { engineBackend } from "./engine-backend.js";
import type { EngineSet } from "./engines/index.js";
import { engineSetBackend } from "./engine-set-backend.js";
import { checkKubernetesBackend, type KubernetesBackend } from "./pods/index.js";
import { describeValue } from "./misuse.js";
import { podBackend } from "./pod-backend.js";
import { podRefusalOf } from "./pod-refusals.js";
import type { BackendRefusals, RunBackend } from "./run-backend.js";

/** The options a backend is chosen from (RuntimeOptions' own); one left undefined is not given. */
export type BackendOptions = {
  readonly docker?: Docker | undefined;
  readonly engine?: Engine | undefined;
  readonly engines?: EngineSet | undefined;
  readonly kubernetes?: KubernetesBackend | undefined;
};

/**
 * What a caller above the runtime keeps for each kind of backend, made from that backend's own option
 * (the runner's egress proxy placement: in the cluster, one per engine, one): one implementation each.
 */
export type PerBackend<T> = {
  /** One Docker engine (`engine`, or the default through `docker`). */
  readonly engine: (engine: Engine) => T;
  /** Several engines (`engines`). */
  readonly engines: (set: EngineSet) => T;
  /** A Kubernetes cluster (`kubernetes`, checked). */
  readonly kubernetes: (kubernetes: KubernetesBackend) => T;
};

/** The backend chosen, and the caller's own for its kind. */
export type ChosenBackend<T> = { readonly backend: RunBackend; readonly own: T };

/** The backends themselves, one per kind. */
const RUN_BACKENDS: PerBackend<RunBackend> = { engine: engineBackend, engines: engineSetBackend, kubernetes: podBackend };

/** Throws an AgentContainerError, one sentence saying what to write instead, for options that name no backend or two. */
export function chooseRunBackend(options: BackendOptions): RunBackend {
  return perBackend(options, RUN_BACKENDS);
}

/** chooseRunBackend, with `each`'s answer for the backend chosen; the same refusals. */
export function chooseRunBackendWith<T>(options: BackendOptions, each: PerBackend<T>): ChosenBackend<T> {
  return perBackend(options, {
    engine: (engine) => ({ backend: RUN_BACKENDS.engine(engine), own: each.engine(engine) }),
    engines: (set) => ({ backend: RUN_BACKENDS.engines(set), own: each.engines(set) }),
    kubernetes: (kubernetes) => ({ backend: RUN_BACKENDS.kubernetes(kubernetes), own: each.kubernetes(kubernetes) }),
  });
}

/** `each`'s answer for the backend the options name, made from its own option: the one branch on which it is; the same refusals. */
export function perBackend<T>(options: BackendOptions, each: PerBackend<T>): T {
  if (options.kubernetes !== undefined) {
    const clash = (["engine", "engines", "docker"] as const).find((name) => options[name] !== undefined);
    if (clash !== undefined) {
      throw new AgentContainerError(`kubernetes is given with ${clash}; a runtime runs its Runs on one backend: leave ${clash} out, or kubernetes`);
    }
    return each.kubernetes(checkKubernetesBackend(options.kubernetes));
  }
  if (options.engine !== undefined && options.docker !== undefined) {
    throw new AgentContainerError("both engine and docker are given; pass an engine, or a docker connection for the default engine, not both");
  }
  if (options.engine !== undefined && (typeof options.engine !== "object" || options.engine === null || typeof options.engine.create !== "function")) {
    throw new AgentContainerError("engine is not an Engine; pass createDockerEngine(...) or leave it out");
  }
  if (options.engines !== undefined) {
    if (typeof options.engines !== "object" || options.engines === null || typeof options.engines.acquire !== "function") {
      throw new AgentContainerError(
        `engines ${describeValue(options.engines)} is not an engine set; pass createEngineSet([{ name, engine }, ...]) or leave it out`,
      );
    }
    if (options.engine !== undefined || options.docker !== undefined) {
      throw new AgentContainerError("engines is given with engine or docker; pass the engines as one set (createEngineSet), or one engine, not both");
    }
    return each.engines(options.engines);
  }
  return each.engine(options.engine ?? createDockerEngine(options.docker));
}

/** Whether `value` is a Run Backend (chooseRunBackend's), as far as a call from plain JavaScript can be told. */
export function isRunBackend(value: unknown): value is RunBackend {
  const candidate = value as Partial<RunBackend> | null;
  return typeof candidate === "object" && candidate !== null && typeof candidate.launch === "function" && typeof candidate.refusal === "function";
}

/** A Docker engine's answer to what a command or a service asks before it runs: it can give all of it. */
const DOCKER_REFUSALS: BackendRefusals = { refusal: () => undefined };

/**
 * What the backend those options choose refuses, known before it is made (no cluster reached, no
 * kubeconfig read): for a command's flags and a service's requests. `kubernetes`: anything given (a namespace).
 */
export function refusalsOf(options: { readonly kubernetes?: unknown }): BackendRefusals {
  return options.kubernetes === undefined ? DOCKER_REFUSALS : { refusal: podRefusalOf };
}
