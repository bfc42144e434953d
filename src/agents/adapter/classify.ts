// Names an API failure from what the CLI reported: an HTTP status when there is one, else its
// words. Structured fields are read first by each parser; this is the shared last step, and a
// successful answer never comes here (an answer that mentions "429" is still completed).

import type { AgentReason } from "./result.js";

export type Classified = { readonly reason: AgentReason; readonly retryable: boolean; readonly resetAt?: string };

const QUOTA = /insufficient[_ ]quota|credit balance|quota|billing|exceeded your current/i;
const CREDENTIAL = /authenticat|unauthori[sz]ed|invalid (x-)?api[ -]?key|invalid bearer|oauth token|permission[_ ]denied|forbidden|log ?in again|\/login/i;
const RATE = /rate[_ ]limit|too many requests/i;
const OVERLOAD = /overloaded|server[_ ]error|internal server error|service unavailable|bad gateway|gateway timeout/i;

export function classifyApiFailure(status: number | undefined, message: string): Classified {
  const resetAt = findResetTime(message);
  const withReset = resetAt === undefined ? {} : { resetAt };
  if (QUOTA.test(message) && status !== 401 && status !== 403) return { reason: "quota_exceeded", retryable: false };
  if (status === 401 || status === 403 || (status === undefined && CREDENTIAL.test(message))) return { reason: "credential_refused", retryable: false };
  if (status === 429 || (status === undefined && RATE.test(message))) return { reason: "rate_limited", retryable: true, ...withReset };
  if (status === 529 || (status !== undefined && status >= 500) || (status === undefined && OVERLOAD.test(message))) {
    return { reason: "overloaded", retryable: true };
  }
  // Last: the first HTTP status the text names, if any ("API Error: 400 ..." is not a server error).
  const named = status === undefined ? /\b([45]\d\d)\b/.exec(message)?.[1] : undefined;
  if (named !== undefined) return classifyApiFailure(Number(named), message);
  return { reason: "api_error", retryable: false };
}

/** A reset time named in an error text: an ISO timestamp, or "in N seconds/minutes" from now. */
export function findResetTime(message: string, now: Date = new Date()): string | undefined {
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(message);
  if (iso?.[1] !== undefined && !Number.isNaN(Date.parse(iso[1]))) return new Date(iso[1]).toISOString();
  const relative = /(?:in|after)\s+(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)\b/i.exec(message);
  if (relative?.[1] !== undefined && relative[2] !== undefined) {
    const unit = relative[2].toLowerCase();
    const factor = unit.startsWith("h") ? 3_600_000 : unit.startsWith("m") ? 60_000 : 1000;
    return new Date(now.getTime() + Number(relative[1]) * factor).toISOString();
  }
  return undefined;
}
