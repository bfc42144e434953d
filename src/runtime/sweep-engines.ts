// The sweep over several engines: each engine that answers is swept in turn and the results are
// added up; one that does not answer is left to its return (engine-set.ts sweeps it then) and logged.

import type { Logger } from "pino";
import type { Engine } from "../engine/index.js";
import type { EngineSet } from "./engine-set.js";
import type { SweepResult } from "./sweep.js";

export async function sweepEngines(set: EngineSet, sweepOn: (engine: Engine) => Promise<SweepResult>, logger: Logger): Promise<SweepResult> {
  const results: SweepResult[] = [];
  for (const { name, engine } of set.engines()) {
    try {
      results.push(await sweepOn(engine));
    } catch (error) {
      logger.warn(
        { engine: name, err: error instanceof Error ? error.message : String(error) },
        "the sweep could not sweep an engine; it is swept when it answers again",
      );
    }
  }
  return {
    removed: results.flatMap((r) => r.removed),
    removedRunDirectories: results.flatMap((r) => r.removedRunDirectories),
    removedNetworks: results.flatMap((r) => r.removedNetworks),
    removedSessionStores: results.flatMap((r) => r.removedSessionStores),
    removedVolumes: results.flatMap((r) => r.removedVolumes),
  };
}
