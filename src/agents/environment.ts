// The agent's environment is an allow-list, never the orchestrator's: the same few public
// variables for every CLI, the CLI's own config dir on the container's tmpfs, and exactly one
// credential (which travels separately, as a secret, per Run).

import type { AgentCli } from "./request.js";

/** Where each CLI keeps its state: on the tmpfs at /tmp, gone with the container. */
/** The tmpfs itself, as the agent image sets it: a directory that exists in every container. */
export const AGENT_HOME = "/tmp";
export const CLAUDE_CONFIG_DIR = "/tmp/claude-config";
/**
 * codex will not create a CODEX_HOME that does not exist, and a codex login's auth.json is mounted
 * into it (a file mount makes its parent directory root's): the tmpfs itself is the one that works.
 */
export const CODEX_HOME = "/tmp";
/**
 * The tmpfs under another name: in the agent image /var/tmp is a link to /tmp. codex refuses to put
 * its helper commands (apply_patch) on PATH when its home lies under TMPDIR, and says so on stderr
 * on every Run; a TMPDIR that is /tmp by another path keeps the home out of it and the files on the tmpfs.
 */
export const AGENT_TMPDIR = "/var/tmp";

const SHARED: Readonly<Record<string, string>> = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  LANG: "C.UTF-8",
  TZ: "UTC",
  HOME: AGENT_HOME,
  TMPDIR: AGENT_TMPDIR,
  // claude's automatic updates (the CLI and its plugins); the image pins the version.
  DISABLE_AUTOUPDATER: "1",
};

/**
 * claude's own switches for everything it sends somewhere other than the model (checked against
 * claude 2.1.332: each name is read by the binary). The container's network is for the model only.
 */
export const CLAUDE_QUIET: Readonly<Record<string, string>> = {
  // All nonessential traffic: telemetry, error reports, update checks, the MCP registry fetch.
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  // Usage events and metrics to Anthropic, and the experiment gates they carry.
  DISABLE_TELEMETRY: "1",
  // Error reports (Sentry).
  DISABLE_ERROR_REPORTING: "1",
  // /bug and /feedback, which upload the session's transcript.
  DISABLE_BUG_COMMAND: "1",
  DISABLE_FEEDBACK_COMMAND: "1",
  // The "how is Claude doing" survey.
  CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
  // Every update, `claude update` included, not only the automatic ones.
  DISABLE_UPDATES: "1",
  // No plugin sync: the official marketplace is not fetched and installed.
  CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
  // No claude.ai connectors fetched from a login's account as tools: not the Run's to use.
  ENABLE_CLAUDEAI_MCP_SERVERS: "false",
};

const PER_CLI: Readonly<Record<AgentCli, Readonly<Record<string, string>>>> = {
  claude: {
    CLAUDE_CONFIG_DIR,
    ...CLAUDE_QUIET,
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
