/**
 * The runtime: an Agent Container declaration composed once, run for real in one fresh
 * locked-down container per Run through the Engine API.
 *
 * ```ts
 * const runtime = createAgentContainerRuntime({
 *   container: { image: "agentcage-test:latest", env: { API_KEY: secret } },
 *   run: (prompt) => ({ args: ["sample-agent"], stdin: prompt.text, outcome: readJsonLines }),
 * });
 * console.log(runtime.commandFor({ text: "hi" }).redactedArgs.join(" "));
 * const outcome = await runtime.run({ text: "hi" }, { timeoutSeconds: 60 });
 * ```
 */
export type { AgentContainer, ContainerLimits } from "./agent-container.js";
export type { AgentContainerRuntime, RunOptions, RuntimeOptions, SweepResult } from "./runtime.js";
export type { ComposedCommand } from "./render-cli.js";
export { AgentContainerError } from "./agent-container.js";
export { ExtraArgsError, SUPPORTED_EXTRA_FLAGS } from "./extra-args.js";
export { createAgentContainerRuntime } from "./runtime.js";
export { REDACTED } from "./redact.js";
export { OWNER_LABEL, RUN_LABEL } from "./compose.js";
export * as limits from "./limits.js";
