// What createAgentRunner and its run() accept from plain JavaScript, checked where they are called:
// a refusal names the runner's own option (never the Agent Container it builds), quotes the
// value and says what to write. run() still never rejects: its misuse is an invalid_request Outcome.

import { describeValue } from "../runtime/index.js";
import type { AgentRunOptions, AgentRunnerOptions } from "./runner.js";

/** A createAgentRunner() or commandFor() call that cannot mean anything. */
export class AgentRunnerError extends Error {
  override readonly name = "AgentRunnerError";
}

const RUNNER_OPTION_NAMES: ReadonlyArray<keyof AgentRunnerOptions> = [
  "image",
  "staging",
  "secretsDirectory",
  "codexLoginDirectory",
  "environment",
  "anthropicBaseUrl",
  "codexProvider",
  "apiRetries",
  "sessions",
  "networkPolicy",
  "egress",
  "allowlist",
  "networks",
  "containerRuntime",
  "limits",
  "user",
  "owner",
  "logger",
  "maxConcurrentRuns",
  "docker",
  "engine",
];
const RUN_OPTION_NAMES: ReadonlyArray<keyof AgentRunOptions> = ["signal", "inputs", "harvestTo", "replaceHarvestTo", "onEvent"];

export function checkRunnerOptions(options: unknown, extra: readonly unknown[]): void {
  if (extra.length > 0) throw new AgentRunnerError(`createAgentRunner takes one argument, its options; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new AgentRunnerError(`createAgentRunner's options ${describeValue(options)} is not an object; pass { image: "agentcage-agent:latest", ... }`);
  }
  const unknown = Object.keys(options).filter((key) => !(RUNNER_OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new AgentRunnerError(`createAgentRunner option ${JSON.stringify(unknown[0])} is not one it knows; use ${RUNNER_OPTION_NAMES.join(", ")}`);
}

/** Why a runner.run() call cannot mean anything, or undefined. */
export function checkRunCall(prompt: unknown, options: unknown, extra: readonly unknown[]): string | undefined {
  if (extra.length > 0) return `run takes (request, prompt, options); ${extra.length} more argument(s) were given; put every option inside options`;
  if (typeof prompt !== "string") return `the prompt ${describeValue(prompt)} is not a string; pass the prompt's text`;
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    return `run's options ${describeValue(options)} is not an object; pass { signal, inputs, harvestTo, onEvent } or leave it out`;
  }
  const unknown = Object.keys(options).filter((key) => !(RUN_OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length > 0) return `run option ${JSON.stringify(unknown[0])} is not one it knows; use ${RUN_OPTION_NAMES.join(", ")}`;
  const { signal, onEvent } = options as AgentRunOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    return `run option signal ${describeValue(signal)} is not an AbortSignal; pass controller.signal or leave it out`;
  if (onEvent !== undefined && typeof onEvent !== "function")
    return `run option onEvent ${describeValue(onEvent)} is not a function; pass (event) => ... or leave it out`;
  return undefined;
}

/** A container declaration's refusal, said in the runner's words: its options, not the Agent Container it builds. */
export function inRunnerWords(error: Error): AgentRunnerError {
  return new AgentRunnerError(error.message.replace(/^Agent Container is invalid: /, "createAgentRunner options are invalid: "), { cause: error });
}
