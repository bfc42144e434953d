// What the end-to-end tests need of the stand-in model: the image tags, and the one way the
// project starts the stand-in (src/cli/stand-in-model.ts: its own container, no network at all).

export { AGENT_IMAGE, STAND_IN_IMAGE } from "../../src/cli/build-image.js";
export { STAND_IN_PORT, startStandInModel } from "../../src/cli/stand-in-model.js";
