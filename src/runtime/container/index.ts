// One container's run on an engine: create, start, watch, wait, exit, remove, and its streams read
// under bounds. Invariant: exports only, no code.
export { outputOf } from "./container-create.js";
export { readVerdict } from "./container-reader.js";
export type { ContainerRunContext, ContainerRunState } from "./container-run-state.js";
export { containerFacts, createContainerRunState } from "./container-run-state.js";
export { runContainer } from "./container-run.js";
