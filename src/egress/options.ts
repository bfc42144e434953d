// The proxy's own declaration: where it listens, where each model provider is, which CONNECT
// targets the operator lists. Refused at construction, naming the option and quoting the value.

import type { Logger } from "pino";
import { connectTarget } from "./connect-target.js";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./limits.js";
import type { ModelProvider } from "../plan/index.js";
import { EGRESS_PROVIDER_NAMES, EGRESS_PROVIDERS } from "./providers/index.js";
import { EgressArgumentError, type EgressBreach } from "./run.js";

export type EgressProxyOptions = {
  /** Default "127.0.0.1". In its own container: "0.0.0.0", on the agents' internal network only. */
  readonly host?: string;
  /** Default 0: the system picks a free port (read it back from the proxy's `port`). */
  readonly port?: number;
  /** Each model provider's upstream, scheme and host (and a path prefix, if any). Default: its defaultUpstream; tests name the stand-in on loopback. */
  readonly upstreams?: Readonly<Partial<Record<ModelProvider, string>>>;
  /**
   * The allowlist mode: `host:port` pairs a Run may open an HTTPS CONNECT tunnel to (no TLS
   * interception). Default none: the model-only mode, where every CONNECT is refused.
   */
  readonly allowlist?: readonly string[];
  /** One line per request. Default: nowhere (a silent pino); the proxy's own process (main.ts) passes its log. */
  readonly logger?: Logger;
  /** Called once per Run when it passes a cap (also available as `onBreach(listener)`). Default none. */
  readonly onBreach?: (breach: EgressBreach) => void;
  /**
   * How long a connection may take to send a request's headers, and the whole request; its answer
   * may stream for longer. Default HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS.
   */
  readonly timeouts?: { readonly headersMs?: number; readonly requestMs?: number };
};

export type ValidatedOptions = {
  readonly host: string;
  readonly port: number;
  readonly upstreams: Readonly<Record<ModelProvider, URL>>;
  /** Normalised `host:port`, host lower-case, IPv6 in brackets. */
  readonly allowlist: ReadonlySet<string>;
  readonly timeouts: { readonly headersMs: number; readonly requestMs: number };
};

export function validateProxyOptions(options: EgressProxyOptions): ValidatedOptions {
  const host = options.host ?? "127.0.0.1";
  if (typeof host !== "string" || host === "")
    throw new EgressArgumentError(`host ${JSON.stringify(host)} is empty; pass an address to listen on, such as "127.0.0.1"`);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new EgressArgumentError(`port ${JSON.stringify(port)} is not a port; pass 0 to 65535 (0 picks a free one)`);
  const upstreams = {} as Record<ModelProvider, URL>;
  for (const provider of EGRESS_PROVIDER_NAMES) {
    upstreams[provider] = upstreamUrl(`upstreams.${provider}`, options.upstreams?.[provider] ?? EGRESS_PROVIDERS[provider].defaultUpstream);
  }
  for (const key of Object.keys(options.upstreams ?? {})) {
    if (!Object.hasOwn(EGRESS_PROVIDERS, key))
      throw new EgressArgumentError(`upstreams.${key} names no model provider; the providers are ${EGRESS_PROVIDER_NAMES.join(", ")}`);
  }
  const allowlist = new Set<string>();
  (options.allowlist ?? []).forEach((entry, i) => {
    const target = typeof entry === "string" ? connectTarget(entry) : undefined;
    if (target === undefined) {
      throw new EgressArgumentError(
        `allowlist[${i}] ${JSON.stringify(entry)} is not host:port; write a host name or address and its port, such as "example.com:443"`,
      );
    }
    allowlist.add(target.key);
  });
  const timeouts = { headersMs: options.timeouts?.headersMs ?? HEADERS_TIMEOUT_MS, requestMs: options.timeouts?.requestMs ?? REQUEST_TIMEOUT_MS };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value < 100)
      throw new EgressArgumentError(
        `timeouts.${name} ${JSON.stringify(value)} is not a whole number of milliseconds of at least 100; leave it out for the default`,
      );
  }
  // Node checks headers against the request timeout too: the headers' may not be the longer.
  if (timeouts.headersMs > timeouts.requestMs)
    throw new EgressArgumentError(
      `timeouts.headersMs ${timeouts.headersMs} is longer than timeouts.requestMs ${timeouts.requestMs}; the headers are part of the request`,
    );
  return { host, port, upstreams, allowlist, timeouts };
}

function upstreamUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EgressArgumentError(`${name} ${JSON.stringify(value)} is not a URL; write the provider's base, such as "https://api.anthropic.com"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new EgressArgumentError(`${name} ${JSON.stringify(value)} is not http or https; write the provider's base, such as "https://api.anthropic.com"`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new EgressArgumentError(`${name} holds a user name or password; write the URL alone, the proxy adds each Run's credential itself`);
  }
  if (url.search !== "" || url.hash !== "") {
    throw new EgressArgumentError(`${name} ${JSON.stringify(value)} has a query or fragment; write the scheme, host and at most a path prefix`);
  }
  return url;
}
