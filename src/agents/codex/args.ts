// The codex adapter: a typed request to `codex exec --json` argv (its own sandbox off, because the
// container is the boundary and codex's sandbox cannot start under stock seccomp; no user config,
// nothing persisted, no shell environment snapshot on disk; nothing sent anywhere but to the model),
// the prompt on stdin.

import type { AdapterRequest as AgentRequest, CodexProvider } from "../adapter/index.js";
import { tomlValue } from "./toml-value.js";

/**
 * Everything codex would send somewhere other than the model, turned off by its own settings
 * (checked against codex 0.171.0: a mistyped value for each key is refused, an unknown feature
 * name too). Each costs time in the cage as well: with no DNS, a lookup waits 5 s before failing.
 */
export const CODEX_QUIET = [
  // Usage metrics to ab.chatgpt.com, uploaded as codex exits: the 5 s wait of every Run.
  "-c",
  "analytics.enabled=false",
  // No OpenTelemetry export of metrics, logs or traces (the metrics exporter defaults to OpenAI's).
  "-c",
  'otel.metrics_exporter="none"',
  "-c",
  'otel.exporter="none"',
  "-c",
  'otel.trace_exporter="none"',
  // No feedback upload (logs and the session to OpenAI).
  "-c",
  "feedback.enabled=false",
  // No check for a newer codex; the image pins the version.
  "-c",
  "check_for_update_on_startup=false",
  // No plugin sync: the curated marketplace from GitHub or chatgpt.com, a login's installed plugins.
  "--disable",
  "plugins",
  // No ChatGPT connectors (apps) fetched from a login's account as tools: not the Run's to use.
  "--disable",
  "apps",
] as const;

export type CodexArgsOptions = {
  /** The agent's working directory inside the container: the staged work/, where the container starts too. */
  readonly workdir: string;
  /** A gateway or stand-in instead of the CLI's own provider; default: none. */
  readonly provider?: CodexProvider;
  /** Write the session's rollout so a later Run can resume it (not --ephemeral); default false. */
  readonly keepSession?: boolean;
};

export function codexArgs(request: AgentRequest, options: CodexArgsOptions): string[] {
  const provider = options.provider;
  const model = request.model ?? provider?.model;
  return [
    "codex",
    "exec",
    "--json",
    "--cd",
    options.workdir,
    "--skip-git-repo-check",
    "--sandbox",
    "danger-full-access",
    ...(options.keepSession === true ? [] : ["--ephemeral"]),
    "--ignore-user-config",
    "--disable",
    "shell_snapshot",
    ...CODEX_QUIET,
    "-c",
    `web_search=${tomlValue(request.web && !request.noTools ? "live" : "disabled")}`,
    ...(request.noTools ? ["--disable", "shell_tool"] : []),
    ...(model === undefined ? [] : ["--model", model]),
    ...(request.effort === undefined ? [] : ["-c", `model_reasoning_effort=${tomlValue(request.effort)}`]),
    ...(request.systemPrompt === undefined ? [] : ["-c", `developer_instructions=${tomlValue(request.systemPrompt)}`]),
    ...(provider === undefined
      ? []
      : [
          "-c",
          'model_provider="agentcage"',
          "-c",
          `model_providers.agentcage=${tomlValue({
            name: "agentcage",
            base_url: provider.baseUrl,
            env_key: provider.envKey ?? "OPENAI_API_KEY",
            wire_api: "responses",
            request_max_retries: provider.maxRetries ?? 0,
            stream_max_retries: provider.maxRetries ?? 0,
          })}`,
        ]),
    // `exec` options come before `resume`, which takes fewer of its own.
    ...(request.resumeSession === undefined ? [] : ["resume", request.resumeSession]),
    // Read the prompt from stdin, never argv.
    "-",
  ];
}
