// The egress proxy: one HTTP server that agents reach instead of their provider. It swaps a
// Run's token for the real credential, forwards only the provider paths of that Run's CLI to that
// CLI's upstream, meters the answers as they stream through, refuses model calls past a budget,
// refuses calls asking the provider to reach other hosts (request-policy.ts, providers.ts), and
// in the allowlist mode tunnels CONNECT to listed host:port pairs (tunnel.ts).
// Invariants: nothing is forwarded for an unknown or revoked token or an unlisted path; a secret
// (credential or token) never appears in a log line, an error or an event; a response body is
// never buffered whole on its way to the client.

import { closeProxy } from "./close.js";
import { controlOf, type EgressControl } from "./control-plane.js";
import { createRequestHandler } from "./model-request.js";
import type { EgressProxyOptions } from "./options.js";
import { logRequest } from "./proxy-log.js";
import { createProxyState } from "./proxy-state.js";
import { runOfToken } from "./run-registry.js";
import { listen } from "./server.js";
import { createConnectHandler } from "./tunnel.js";

export type { EgressControl } from "./control-plane.js";

export type EgressProxy = EgressControl & {
  /** "http://<host>:<port>": claude's ANTHROPIC_BASE_URL; codex's provider base_url is url + "/v1". */
  readonly url: string;
  readonly port: number;
  /** Revokes every Run and stops listening. */
  readonly close: () => Promise<void>;
};

export async function createEgressProxy(options: EgressProxyOptions = {}): Promise<EgressProxy> {
  const state = createProxyState(options);
  const { server, port, url } = await listen(state, {
    request: createRequestHandler(state),
    connect: createConnectHandler({
      allowlist: state.config.allowlist,
      runOfToken: (token) => runOfToken(state, token),
      log: (entry, started) => logRequest(state, entry, started),
    }),
  });
  return { url, port, ...controlOf(state), close: () => closeProxy(state, server) };
}
