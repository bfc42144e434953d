// The Run Backend of several Docker engines (engine-set.ts): each Run takes a slot on one (placement),
// and its container goes there as on one engine; a drained engine is said on the board and swept at
// its return; the sweep and check() go over each. It refuses a warm pool and a network declared by
// hand, which live on one engine. Invariant: a Run's lease is given back once, whatever happened.

import { createDockerEngine } from "../engine/index.js";
import { AgentContainerError } from "../container/index.js";
import { engineNetworksOf, launchContainer } from "./container-launch.js";
import { sweepEngine } from "./engine-backend.js";
import type { EngineSet } from "./engines/index.js";
import { ENGINE_CLEANUP_TIMEOUT_MS } from "./limits.js";
import type { BackendScope, RunBackend } from "./run-backend.js";
import { checkEngineSet } from "./runtime-check.js";
import { bounded } from "./stop.js";
import { sweepEngines } from "./engines/index.js";

export function engineSetBackend(set: EngineSet): RunBackend {
  return {
    description: `engines ${set.names.join(", ")}`,
    engine: set.engines()[0]?.engine ?? createDockerEngine(),
    ...(typeof set.status === "function" ? { slots: set.status().reduce((sum, e) => sum + e.slots, 0) } : {}),
    refusal: ({ needs, asked }) =>
      needs === "network"
        ? `${asked} cannot go with engines: a network declared by hand lives on one engine, and a Run may be placed on any; use a networkPolicy over several engines, or one engine`
        : undefined,
    refuseOptions: (options) => {
      if (options.pool !== undefined) {
        throw new AgentContainerError("pool is given with engines; a warm pool is made on one engine: leave pool out, or pass one engine");
      }
    },
    watch: (scope) => watchEngines(set, scope),
    place: (image, signal) => set.acquire(image, signal),
    networksOf: engineNetworksOf,
    launch: launchContainer,
    sweep: (scope) => sweepEngines(set, (one) => sweepEngine(scope, one), scope.logger),
    check: (scope) => checkEngineSet(set, scope.container.image),
  };
}

/** A drained engine on the board; one back swept of what its ended Runs left; a slow one said. */
function watchEngines(set: EngineSet, scope: BackendScope): void {
  const { degradations, logger, masker } = scope;
  set.onDrain((name, why) =>
    degradations.raise({
      kind: "engine",
      subject: name,
      reason: `the engine ${JSON.stringify(name)} stopped answering (${why}): its Runs were ended, and no Run goes there until it answers again`,
      fix: `start the engine ${JSON.stringify(name)} again, or mend the way to it; agentcage doctor --engine checks each one`,
    }),
  );
  // An engine back after it was drained still holds what its ended Runs left: sweep it then.
  set.onReturn((name, back) => {
    degradations.clear("engine", name);
    logger.info({ engine: name }, "an engine answers again; sweeping what its drained Runs left");
    void bounded(sweepEngine(scope, back), ENGINE_CLEANUP_TIMEOUT_MS, "the sweep of an engine back").catch((error: unknown) => {
      logger.warn({ engine: name, err: masker.mask(error instanceof Error ? error.message : String(error)) }, "the sweep of an engine back failed");
    });
  });
  // A late ping is an engine slow, not gone: said, and its Runs go on.
  set.onSlow((name, hit) => {
    logger.warn({ engine: name, boundMs: hit.boundMs, waitedMs: hit.waitedMs }, "an engine is slow to answer its ping; its Runs go on");
  });
}
