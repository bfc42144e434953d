// The Run Backend: where a Run's container lives (one Docker engine, several, a Kubernetes cluster),
// as one interface the runtime calls and never asks which it is. Chosen once, when the runtime is
// built (run-backends.ts); each implementation says for itself how a Run is placed and launched, how
// its files travel, what a sweep removes, what check() asks, and what it refuses, in its own words.
// Invariant: nothing outside an implementation and the choice branches on which backend is in use.

import type { Logger } from "pino";
import type { ValidatedContainer } from "../container/index.js";
import type { Engine } from "../engine/index.js";
import type { Masker } from "../redact/index.js";
import type { Degradations } from "./degradations.js";
import type { RuntimeCheck } from "./runtime-check.js";
import type { RunFiles, RunLauncher } from "./run/index.js";
import type { SweepResult } from "./ownership/index.js";

/** What a backend may be asked for that it might not give; see BackendAsk. */
export type BackendNeed =
  /** A Docker network declared by hand (`--network`, `--agent-network`). */
  | "network"
  /** A Run's files bound from this host's disk (runFiles "disk"). */
  | "runFilesDisk"
  /** A session store kept and resumed. */
  | "session"
  /** A Docker engine named by hand (`--engine`). */
  | "engine"
  /** A warm pool of containers started ahead. */
  | "pool"
  /** An egress proxy on a Docker engine (the Operator's, or on its networks). */
  | "egress"
  /** The range a Run's own Docker network takes its subnet from. */
  | "runNetworkRange"
  /** The stand-in model beside the agent, under `policy`. */
  | "standIn"
  /** A network policy (`policy`) as the agent's reach. */
  | "networkPolicy"
  /** Secrets written to the container's tmpfs by the pool's launcher (claude's key helper reads them). */
  | "tmpfsSecrets"
  /** A network of the Run's own on its engine, under a policy that makes one. */
  | "runNetwork";

/** A question put to a backend before it is used: can it give what `asked` names? */
export type BackendAsk = {
  readonly needs: BackendNeed;
  /** What was asked, as the caller spells it: a flag (`--pool 2`), a request's field and value (`resumeSession "s"`). */
  readonly asked: string;
  /** The network policy asked, for needs "networkPolicy" and "standIn". */
  readonly policy?: string;
  /**
   * Who asks, and so whose words the refusal names: "command", a flag of `agentcage run` or `serve`
   * (the default); "service", a field of a Service Run's request; "library", an option of createAgentRunner.
   */
  readonly audience?: "command" | "service" | "library";
};

/** What a backend refuses, in its own words: a sentence naming what was asked and what to do; undefined when it can give it. */
export type BackendRefusals = {
  readonly refusal: (ask: BackendAsk) => string | undefined;
};

/** What a runtime's backend calls need of the runtime: its declaration, its owner and session, its log, masker and board. */
export type BackendScope = {
  readonly container: ValidatedContainer;
  readonly owner: string;
  readonly session: string;
  readonly logger: Logger;
  readonly masker: Masker;
  readonly degradations: Degradations;
};

/** Where a Run goes, held while it runs: an engine (a slot on one of several), given back once. */
export type RunPlacement = {
  readonly engine: Engine;
  /** The engine's name, with several; undefined with one (or a cluster). */
  readonly name?: string;
  /** Aborted when the engine is drained (the Run ends `unavailable`); with several engines only. */
  readonly signal?: AbortSignal;
  readonly release: () => void;
};

export type RunBackend = BackendRefusals &
  RunLauncher & {
    /** What it is, for logs and a service's view: "the Docker engine", "engines a, b", "Kubernetes namespace agents". */
    readonly description: string;
    /** The engine a Run's container goes to unless its placement says another, and the warm pool's. */
    readonly engine: Engine;
    /** How its Runs' files must reach them, when it allows one way only; default: as the options say. */
    readonly runFiles?: RunFiles;
    /** Runs it can hold at once, when it knows (the sum of its engines' slots): the default concurrency. */
    readonly slots?: number;
    /** Options of createAgentContainerRuntime it cannot go with, refused as AgentContainerError naming the option. */
    readonly refuseOptions: (options: BackendOptionsAsked, container: ValidatedContainer) => void;
    /** Called once per runtime: what it tells the runtime's board and log while it goes on. */
    readonly watch: (scope: BackendScope) => void;
    /** A place for a Run of `image`: `{ refused }` when none can take it now; undefined when `signal` aborts first. */
    readonly place: (image: string, signal?: AbortSignal) => Promise<RunPlacement | { readonly refused: string } | undefined>;
    /** Removes what a gone process of this owner left there (and this session's own that is not live). */
    readonly sweep: (scope: BackendScope) => Promise<SweepResult>;
    /** Whether a Run could start now; never throws. */
    readonly check: (scope: BackendScope) => Promise<RuntimeCheck>;
  };

/** The runtime options a backend may refuse to go with. */
export type BackendOptionsAsked = {
  readonly pool?: unknown;
  readonly runFiles?: RunFiles;
  readonly writeBound?: string;
};

/** A place that is always there: the one engine, held by nothing. */
export function placeOn(engine: Engine): RunPlacement {
  return { engine, release: () => undefined };
}
