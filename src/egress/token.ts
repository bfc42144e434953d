// Per-Run tokens: opaque, random, bound to one Run by the proxy's table and worth nothing anywhere
// else (no provider accepts one). The table is keyed by the token's SHA-256, so a lookup's timing
// says nothing about a token's bytes.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { RUN_TOKEN_BYTES, RUN_TOKEN_PREFIX } from "./limits.js";

/** `agentcage-run-` and 32 random bytes in base64url (57 characters in all). */
export function newRunToken(): string {
  return `${RUN_TOKEN_PREFIX}${randomBytes(RUN_TOKEN_BYTES).toString("base64url")}`;
}

export function tokenKey(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Compares two secrets in time that depends on neither (both are hashed first). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}
