// Which CA certificates an image build's npm trusts, so a TLS-inspecting proxy the host trusts
// works inside the agent and orchestrator builds too. Invariant: only a file the environment or
// the host names is chosen; the tarballs' sha512 is checked whatever the CAs.

import { existsSync } from "node:fs";

/** Where the agent and orchestrator Dockerfiles' fetch stages look for a TLS-inspecting proxy's CA certificates. */
export const BUILD_CA_NAME = "build-ca.crt";
/** Debian's bundle of the CAs this host trusts, including any an administrator added. */
export const HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/**
 * The CA certificates a build's npm must trust: AGENTCAGE_BUILD_CA_CERTS (empty: none), else
 * NODE_EXTRA_CA_CERTS, else the host's own bundle when there is one.
 */
export function buildCaCertsFile(env: NodeJS.ProcessEnv, hostBundleExists: boolean = existsSync(HOST_CA_BUNDLE)): string | undefined {
  const chosen = env["AGENTCAGE_BUILD_CA_CERTS"] ?? env["NODE_EXTRA_CA_CERTS"] ?? (hostBundleExists ? HOST_CA_BUNDLE : undefined);
  return chosen === undefined || chosen === "" ? undefined : chosen;
}
