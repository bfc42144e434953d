/**
 * The Agent Container: the inert declaration, its validation, the extra args it may carry, the
 * one composed spec per Run, and its two renderings (`docker run` words and the Engine API body).
 * Pure: nothing here touches the disk, the network or the engine.
 *
 * ```ts
 * const container = validateAgentContainer({ image: "agentcage-test:latest" });
 * const spec = composeSpec(container, { runId: "0123456789abcdef", planArgs: ["sample-agent"] });
 * renderCommand(spec, "hi", createMasker([])).args; // ["run", "--rm", "--interactive", "--init", "--cap-drop", "ALL", ...]
 * renderCreateBody(spec); // { Image: "agentcage-test:latest", HostConfig: { CapDrop: ["ALL"], ... } }
 * ```
 */
export type { AgentContainer, ContainerLimits, StagingDeclaration, ValidatedContainer } from "./agent-container.js";
export type { ComposedSpec, ContainerDeadline } from "./compose.js";
export type { ComposedCommand } from "./render-cli.js";
export type { ExtraOptions } from "./extra-args.js";
export { AgentContainerError, agentWorkdirOf, DEFAULT_AGENT_WORKDIR, unmaskableSecret, validateAgentContainer } from "./agent-container.js";
export {
  commandWords,
  composeSpec,
  containerName,
  DEADLINE_COMMAND,
  deadlineWords,
  DEFAULT_OWNER,
  effectiveEnv,
  OWNER_LABEL,
  resolveAgentUser,
  RUN_LABEL,
} from "./compose.js";
export { ENV_NAME, ExtraArgsError } from "./extra-args.js";
export { renderCommand } from "./render-cli.js";
export { renderCreateBody } from "./render-api.js";
export * from "./limits.js";
