// The front of the library: an Agent Container plus one Run Plan function make a Runtime.
// Construction validates and composes once (so a bad declaration throws where it was written);
// run() queues for a slot and never rejects for what happens to a Run, commandFor() starts
// nothing, sweep() cleans up after a crashed process. This file only puts the parts together:
// runtime-options (construction), runtime-shared (what the Runs share), runtime-run, runtime-command.

import type { ComposedCommand } from "../container/index.js";
import type { PodManifest } from "../kube/index.js";
import type { Outcome, ReaderVerdict, RunPrompt } from "../plan/index.js";
import { holdSessionStore } from "./live-runs.js";
import type { RunOptions } from "./run/index.js";
import type { RuntimeCheck } from "./runtime-check.js";
import { commandForOf, type ManifestOptions, manifestForOf } from "./runtime-command.js";
import { checkRuntimeOptions, type RuntimeOptions } from "./runtime-options.js";
import { runOf } from "./runtime-run.js";
import { createRuntimeShared } from "./runtime-shared.js";
import type { PoolStats } from "./pool/index.js";
import type { DegradationView } from "./degradations.js";
import type { SweepResult } from "./ownership/index.js";

export type { RuntimeOptions } from "./runtime-options.js";

/**
 * An Agent Container and a Run Plan function put together: `run` one prompt in a fresh container, or
 * see its `commandFor` without starting one. `run` never rejects for what happens to a Run; its Outcome says.
 */
export type AgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict, Q = undefined> = {
  readonly run: (prompt: RunPrompt<Q>, options?: RunOptions) => Promise<Outcome<R>>;
  readonly commandFor: (prompt: RunPrompt<Q>, options?: Pick<RunOptions, "env" | "secretFiles" | "secrets">) => ComposedCommand;
  /**
   * The Kubernetes Pod and NetworkPolicy of a Run that starts now, as commandFor composes it,
   * starting nothing; a Run that a Pod cannot honour throws KubernetesError. Not yet run on a live cluster.
   */
  readonly manifestFor: (prompt: RunPrompt<Q>, pod: ManifestOptions, options?: Pick<RunOptions, "env" | "secretFiles" | "secrets">) => Promise<PodManifest>;
  /**
   * Removes this owner's containers and Run directories that belong to no live Run of this
   * process (what a crashed process left). Runs once by itself before the first Run.
   */
  readonly sweep: () => Promise<SweepResult>;
  /** This runtime's session id: on every container and Run directory it makes, so no other process's sweep ends them. */
  readonly session: string;
  /**
   * Marks the kept session store `id` of `namespace` as in use until the returned release is called
   * (once; later calls do nothing): no sweep of this process takes it meanwhile. For a Run that waits
   * outside this runtime (a service's own queue) for the store it will resume. Without staging, nothing is held.
   */
  readonly holdSessionStore: (namespace: string, id: string) => () => void;
  /**
   * Whether a Run could start now: the engine answers, and holds the declared image. With several
   * engines, `engines` says so of each, and `engine` and `image` are true when one of them can take a Run. Never throws.
   */
  readonly check: () => Promise<RuntimeCheck>;
  /** The warm pool's figures; undefined without a pool. */
  readonly pool: () => PoolStats | undefined;
  /**
   * What makes it less than it says now, oldest first: a pool that cannot fill, a Run network range
   * that clashes, an engine drained (or, alone, not answering its last check). Empty when nothing does.
   */
  readonly degradations: DegradationView;
  /**
   * Removes the warm pool's unclaimed members and waits for what warm Runs left to the background
   * (their networks' removal); Runs under way are not touched. Without a pool, nothing to do.
   */
  readonly close: () => Promise<void>;
};

/**
 * Makes an AgentContainerRuntime for an agent of one's own (the agent runner is one for claude and
 * codex). A declaration that cannot mean anything throws here, where it was written, never in a Run.
 */
export function createAgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict, Q = undefined>(
  options: RuntimeOptions<R, Q>,
  ...extra: never[]
): AgentContainerRuntime<R, Q> {
  const shared = createRuntimeShared(options, checkRuntimeOptions(options, extra));
  const { container, backend } = shared;
  return {
    run: runOf(shared),
    commandFor: commandForOf(shared),
    manifestFor: manifestForOf(shared),
    sweep: shared.sweep,
    session: shared.session,
    check: () => backend.check(shared.scope),
    pool: () => shared.pool?.stats(),
    degradations: { list: shared.degradations.list, begun: shared.degradations.begun },
    close: async () => await shared.pool?.close(),
    holdSessionStore: (namespace: string, id: string): (() => void) => {
      const runtimeDir = container.staging?.runtimeDir;
      return runtimeDir === undefined ? () => undefined : holdSessionStore(runtimeDir, namespace, id);
    },
  };
}
