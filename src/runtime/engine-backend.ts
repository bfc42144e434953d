// The Run Backend of one Docker engine: every Run's container there, cold (container-launch.ts) or
// from the warm pool; the sweep of this owner's containers, networks, volumes and Run directories
// there; check() its ping and the image; it refuses nothing a Docker engine can do.
// Invariant: one engine, and the runtime's board says when it does not answer its check.

import type { Engine } from "../engine/index.js";
import { engineNetworksOf, launchContainer } from "./container-launch.js";
import type { Degradations } from "./degradations.js";
import { placeOn, type BackendScope, type RunBackend } from "./run-backend.js";
import { checkEngine, type RuntimeCheck } from "./runtime-check.js";
import { sweep, type SweepResult } from "./ownership/index.js";

export function engineBackend(engine: Engine): RunBackend {
  return {
    description: "the Docker engine",
    engine,
    refusal: () => undefined,
    refuseOptions: () => undefined,
    watch: () => undefined,
    place: () => Promise.resolve(placeOn(engine)),
    networksOf: engineNetworksOf,
    launch: launchContainer,
    sweep: (scope) => sweepEngine(scope, engine),
    check: async (scope) => judgedEngine(scope.degradations, await checkEngine(engine, scope.container.image)),
  };
}

/** This owner's leftovers on one engine, as the runtime's scope names them. */
export function sweepEngine(scope: BackendScope, engine: Engine): Promise<SweepResult> {
  const { container, owner, session, logger, masker } = scope;
  return sweep({ container, owner, session, engine, logger, masker });
}

/** The one engine, as its check found it: gone while it does not answer, back once it does. */
function judgedEngine(degradations: Degradations, checked: RuntimeCheck): RuntimeCheck {
  if (checked.engine) degradations.clear("engine");
  else
    degradations.raise({
      kind: "engine",
      reason: "the container engine does not answer: no Run can start until it does",
      fix: "start the engine (dockerd), or set DOCKER_HOST to one that runs; agentcage doctor says what it found",
      stopsRuns: true,
    });
  return checked;
}
