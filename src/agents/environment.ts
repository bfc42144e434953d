// The agent's environment is an allow-list, never the orchestrator's: the same few public
// variables for every CLI, each CLI's own (its adapter's: its config dir on the container's tmpfs,
// its quiet switches, where it speaks), and exactly one credential (which travels separately, as a
// secret, per Run).

import type { AgentEndpoint, EndpointOverrides } from "./adapter/index.js";
import { AGENT_CLIS, adapterFor, type AgentCli } from "./adapters.js";

/** The tmpfs itself, as the agent image sets it: a directory that exists in every container. */
export const AGENT_HOME = "/tmp";
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

/** The public (non-secret) environment of a CLI's Run, where it speaks as `endpoints` say. */
export function publicEnvironment(cli: AgentCli, endpoints: EndpointOverrides = {}): Record<string, string> {
  const adapter = adapterFor(cli);
  return { ...SHARED, ...adapter.environment(adapter.endpointOf(endpoints)) };
}

/**
 * The public environment of a container any CLI may run in (a runner declares one for all): every
 * CLI's variables (each ignores the others'), each pointed at its endpoint, with the CLIs' own retries.
 */
export function everyPublicEnvironment(
  endpoints: Readonly<Partial<Record<AgentCli, AgentEndpoint | undefined>>> = {},
  apiRetries?: number,
): Record<string, string> {
  return Object.assign({ ...SHARED }, ...AGENT_CLIS.map((cli) => adapterFor(cli).environment(endpoints[cli], apiRetries))) as Record<string, string>;
}
