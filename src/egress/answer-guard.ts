// What the proxy hands an agent of its provider's answer: never the real credential. An upstream
// that echoes what it received (a gateway's error page, a debugging endpoint) would otherwise give
// the agent the key, so every header and every body byte is masked in every spelling the masker
// knows, and a compressed body is decoded first (an encoding the proxy cannot decode is refused).
// Invariant: no byte reaches the agent before it was masked; the body is never buffered whole.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { createMasker, type Masker } from "../redact/index.js";

/** A masker of one Run's real credential, for what goes back to its agent. */
export function credentialMasker(credential: string): Masker {
  return createMasker([credential]);
}

/** The answer's headers with the credential masked in names and values. */
export function maskedHeaders(headers: OutgoingHttpHeaders, masker: Masker): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const maskedName = masker.mask(name);
    // A header named by the secret goes whole: its name cannot be written masked.
    if (maskedName !== name) continue;
    out[name] = Array.isArray(value) ? value.map((v) => masker.mask(v)) : typeof value === "string" ? masker.mask(value) : value;
  }
  return out;
}

/**
 * The decoder a body in `contentEncoding` needs before it can be masked: null for identity,
 * undefined for an encoding the proxy cannot read.
 */
export function decoderFor(contentEncoding: IncomingHttpHeaders["content-encoding"]): Transform | null | undefined {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return null;
  if (encoding === "gzip" || encoding === "x-gzip") return createGunzip();
  if (encoding === "deflate") return createInflate();
  if (encoding === "br") return createBrotliDecompress();
  return undefined;
}
