/**
 * The stand-in model's launcher: the project's offline model server started in a locked-down
 * container of its own, on a network the agent joins, so a Run needs no key and no internet (for
 * trying agentcage and for tests). What the stand-in answers lives in test/stand-in/.
 *
 * ```ts
 * const standIn = await startStandInModel("plain");
 * const agents = createAgentRunner({ image: AGENT_IMAGE, ...standInRunnerOptions(standIn) });
 * await standIn.stop();
 * ```
 */
export type { RunningStandIn, StandInOptions, StandInRequest, StartWaiting } from "./stand-in-model.js";
export {
  STAND_IN_CODEX_MODEL,
  STAND_IN_ENVIRONMENT,
  STAND_IN_IMAGE,
  STAND_IN_OWNER,
  STAND_IN_PORT,
  standInRunnerOptions,
  startStandInModel,
} from "./stand-in-model.js";
