// The agent's environment is an allow-list, never the orchestrator's: the same few public
// variables for every CLI, the CLI's own config dir on the container's tmpfs, and exactly one
// credential (which travels separately, as a secret, per Run).

import type { AgentCli } from "./request.js";

/** Where each CLI keeps its state: on the tmpfs at /tmp, gone with the container. */
/** The tmpfs itself, as the agent image sets it: a directory that exists in every container. */
export const AGENT_HOME = "/tmp";
export const CLAUDE_CONFIG_DIR = "/tmp/claude-config";
/** codex will not create its home; the tmpfs itself always exists. */
export const CODEX_HOME = "/tmp";

const SHARED: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  LANG: "C.UTF-8",
  TZ: "UTC",
  HOME: AGENT_HOME,
  TMPDIR: "/tmp",
  DISABLE_AUTOUPDATER: "1",
};

const PER_CLI: Readonly<Record<AgentCli, Readonly<Record<string, string>>>> = {
  claude: {
    CLAUDE_CONFIG_DIR,
    // No telemetry, error reporting or update checks: the container's network is for the model only.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  },
  codex: {
    CODEX_HOME,
  },
};

export type EndpointOverrides = {
  /** For claude: ANTHROPIC_BASE_URL (a gateway, or a stand-in model); default: the CLI's own. */
  readonly anthropicBaseUrl?: string;
};

/** The public (non-secret) environment of a CLI's Run. */
export function publicEnvironment(cli: AgentCli, endpoints: EndpointOverrides = {}): Record<string, string> {
  return {
    ...SHARED,
    ...PER_CLI[cli],
    ...(cli === "claude" && endpoints.anthropicBaseUrl !== undefined ? { ANTHROPIC_BASE_URL: endpoints.anthropicBaseUrl } : {}),
  };
}
