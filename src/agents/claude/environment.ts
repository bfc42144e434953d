// Where claude keeps its state and what it is told so it sends nothing but to the model: its
// config dir on the container's tmpfs, gone with the container, and its own quiet switches.

/** claude's config dir: on the tmpfs at /tmp (the agent image's HOME), gone with the container. */
export const CLAUDE_CONFIG_DIR = "/tmp/claude-config";

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
