// The one record of agent CLIs: each name and its adapter. Adding a CLI is a folder of its own and
// one line here; every other place asks this record (adapterFor, or AGENT_CLIS to list them).
// Invariant: a record key is its adapter's `cli`, and the first is the default CLI.

import type { AgentAdapter } from "./adapter/index.js";
import { claudeAdapter } from "./claude/index.js";
import { codexAdapter } from "./codex/index.js";

export const AGENT_ADAPTERS = {
  claude: claudeAdapter,
  codex: codexAdapter,
} as const satisfies Readonly<Record<string, AgentAdapter>>;

/** An agent CLI agentcage knows: a key of AGENT_ADAPTERS. */
export type AgentCli = keyof typeof AGENT_ADAPTERS;

/** Every agent CLI, in the record's order. */
export const AGENT_CLIS = Object.keys(AGENT_ADAPTERS) as [AgentCli, ...AgentCli[]];

/** The CLI a caller who names none gets (an A2A message without metadata.cli). */
export const DEFAULT_AGENT_CLI: AgentCli = AGENT_CLIS[0];

/** The adapter of a CLI. */
export function adapterFor(cli: AgentCli): AgentAdapter {
  return AGENT_ADAPTERS[cli];
}

/** Whether a value names a known CLI (a stored record's, a flag's). */
export function isAgentCli(value: unknown): value is AgentCli {
  return typeof value === "string" && Object.hasOwn(AGENT_ADAPTERS, value);
}

/** Each CLI's value of `pick`, as a record keyed by CLI. */
export function perCli<T>(pick: (adapter: AgentAdapter) => T): Record<AgentCli, T> {
  return Object.fromEntries(AGENT_CLIS.map((cli) => [cli, pick(AGENT_ADAPTERS[cli])])) as Record<AgentCli, T>;
}
