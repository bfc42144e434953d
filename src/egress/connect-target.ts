// How a `host:port` is read wherever the proxy meets one: a CONNECT request's target, an allowlist
// entry, the control endpoint's address. One parser, so each place agrees on what names a host.

/** `host:port` of a CONNECT request or an allowlist entry, normalised; undefined when it is not one. */
export function connectTarget(text: string): { readonly host: string; readonly port: number; readonly key: string } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):(\d{1,5})$/.exec(text.trim());
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  const host = (match[1] ?? "").toLowerCase();
  return { host: host.startsWith("[") ? host.slice(1, -1) : host, port, key: `${host}:${port}` };
}
