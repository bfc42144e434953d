/**
 * For testing an agent integration offline: agentcage's images (the agent, the stand-in model and
 * the orchestrator, whose image startEgressGateway runs) built from this package, and the
 * stand-in model server (images/stand-in) started in a container with no network through the
 * library itself, which an agent container joins.
 *
 * ```ts
 * await buildAgentImages(); // on the local engine, or { engine: createDockerEngine(...) }; or: npx agentcage-build-images
 * const standIn = await startStandInModel("plain");
 * const agents = createAgentRunner({ image: AGENT_IMAGE, networks: [standIn.network], anthropicBaseUrl: standIn.baseUrl });
 * // ... run, then:
 * await standIn.stop();
 * ```
 */
export type { RunningStandIn, StandInOptions, StandInRequest, StartWaiting } from "../stand-in/index.js";
export type { AgentImageName, BuildAgentImagesOptions, BuildImagesCommandOptions, ImageInputs } from "./agent-images.js";
export type { IgnoreRule, OrchestratorBuildRequest } from "./orchestrator-image.js";
export type { BuildImageOptions, BuildImageResult, BuildProgress, ImageBuildRequest, ImageEngine, ImageEngineConnection } from "./build-image.js";
export type { ContextFile, ExtraFile } from "./image-context.js";
export { AGENT_IMAGE } from "../runner/index.js";
export {
  STAND_IN_IMAGE,
  STAND_IN_OWNER,
  STAND_IN_PORT,
  STAND_IN_CODEX_MODEL,
  STAND_IN_ENVIRONMENT,
  standInRunnerOptions,
  startStandInModel,
} from "../stand-in/index.js";
export {
  AGENT_IMAGE_NAMES,
  agentBuildArgs,
  agentImageInputs,
  agentImageRequest,
  buildAgentImages,
  buildImagesCommand,
  CLI_BUILD_ARGS,
  DEFAULT_IMAGE_TAGS,
  packageRoot,
  parseClisEnv,
} from "./agent-images.js";
export { BUILD_CA_NAME, buildCaCertsFile, HOST_CA_BUNDLE } from "./build-ca.js";
export {
  inContext,
  ORCHESTRATOR_DOCKERFILE,
  ORCHESTRATOR_IMAGE,
  orchestratorContextNames,
  orchestratorImageRequest,
  parseDockerignore,
  SHIPPED_LOCKFILE,
  withOrchestratorContext,
} from "./orchestrator-image.js";
export { buildImage, readBuildProgress } from "./build-image.js";
export { INPUTS_LABEL, inputsHash, packContext, readContext } from "./image-context.js";
