// What the end-to-end tests need of the stand-in model: the image tags, and the one way the
// project starts the stand-in (the testing export: its own container, no network at all).

export {
  AGENT_IMAGE,
  STAND_IN_CODEX_MODEL,
  STAND_IN_ENVIRONMENT,
  STAND_IN_IMAGE,
  STAND_IN_PORT,
  standInRunnerOptions,
  startStandInModel,
} from "../../src/testing/index.js";
export type { RunningStandIn, StandInRequest } from "../../src/testing/index.js";
