// The sweep over several engines: each engine that answers its ping is swept in turn and the results
// are added up; one that does not is not asked (a host gone from the network would hold the sweep, and
// every Run waiting on the start-up sweep, for minutes) and is swept at its return (engine-set.ts).

import type { Logger } from "pino";
import type { Engine } from "../../engine/index.js";
import type { EngineSet } from "./engine-set.js";
import type { SweepResult } from "../ownership/index.js";

export async function sweepEngines(set: EngineSet, sweepOn: (engine: Engine) => Promise<SweepResult>, logger: Logger): Promise<SweepResult> {
  const results: SweepResult[] = [];
  const answering = await set.answering();
  const skipped = set.names.filter((name) => !answering.some((one) => one.name === name));
  if (skipped.length > 0) logger.warn({ engines: skipped }, "the sweep skips engines that do not answer; each is swept when it answers again");
  for (const { name, engine } of answering) {
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
