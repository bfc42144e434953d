// What a model call's body may ask the provider to do on the Run's behalf, and the one place a
// body is decoded and parsed for the proxy to look at (its tools, which its provider may refuse:
// providers/; its bounds, for the budget's reservation). A request may name tools the provider runs
// on its own servers; one that reaches a URL of the request's choosing (a remote MCP server) is a
// way out around this proxy, so the request is refused before it leaves.
// Invariant: a body this file cannot read (an encoding it cannot decode, not JSON) is refused, never
// forwarded unread: the provider might read what the proxy could not.

import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { MAX_REQUEST_BODY_BYTES } from "./limits.js";

/** A model call's body, decoded and parsed, or why it cannot be read (and so is refused). */
export function readModelCallBody(
  raw: Buffer,
  contentEncoding: string | undefined,
): { readonly body: Readonly<Record<string, unknown>>; readonly bytes: number } | { readonly refusal: string } {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  let bytes: Buffer | undefined;
  try {
    const options = { maxOutputLength: MAX_REQUEST_BODY_BYTES };
    bytes =
      encoding === "identity"
        ? raw
        : encoding === "gzip" || encoding === "x-gzip"
          ? gunzipSync(raw, options)
          : encoding === "deflate"
            ? inflateSync(raw, options)
            : encoding === "br"
              ? brotliDecompressSync(raw, options)
              : undefined;
  } catch {
    return { refusal: `the request body does not decode as ${JSON.stringify(encoding)}` };
  }
  if (bytes === undefined)
    return { refusal: `a request body in content-encoding ${JSON.stringify(encoding)} cannot be inspected; send it as identity, gzip, deflate or br` };
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { refusal: "the request body is not JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { refusal: "the request body is not a JSON object" };
  return { body: body as Record<string, unknown>, bytes: bytes.length };
}
