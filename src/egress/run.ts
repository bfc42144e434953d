// A Run as the egress proxy knows it: what the runtime registers (which model provider, the real credential,
// the budget) and what the meter reads back. Refuses at registration what the value alone shows
// to be wrong, naming the parameter and quoting the value; a credential's value is never quoted.

import { isIP } from "node:net";
import { AgentcageError } from "../errors/index.js";
import type { ModelCallFacts } from "../trace/index.js";
import { MAX_ALLOWLIST_ENTRIES, MAX_CREDENTIAL_LENGTH, EGRESS_RUN_ID_PATTERN, RUN_TOKEN_BYTES, RUN_TOKEN_PREFIX } from "./limits.js";
import { connectTarget } from "./connect-target.js";
import { EGRESS_PROVIDER_NAMES, isModelProvider } from "./providers/index.js";
import type { ModelProvider } from "../plan/index.js";

/** A per-Run token as newRunToken makes them: the prefix and 32 bytes in base64url (43 characters). */
const RUN_TOKEN_PATTERN = new RegExp(`^${RUN_TOKEN_PREFIX}[A-Za-z0-9_-]{${Math.ceil((RUN_TOKEN_BYTES * 4) / 3)}}$`);

/**
 * The real credential the proxy sends upstream in the Run's stead, as its provider writes it.
 * Anthropic: an API key goes out as `x-api-key`, an OAuth token (CLAUDE_CODE_OAUTH_TOKEN) as
 * `Authorization: Bearer` with the OAuth beta; OpenAI: either goes out as `Authorization: Bearer`.
 */
export type EgressCredential = { readonly kind: "api_key" | "oauth_token"; readonly value: string };

/** Caps enforced at the source: past one, the Run's next model call is refused. */
export type EgressBudget = {
  /** Model calls (POST /v1/messages, POST /v1/responses); the call after the last one allowed is refused. Default: none. */
  readonly maxTurns?: number;
  /** Input + output tokens as the provider reported them; cached tokens are not in this sum. Default: none. */
  readonly maxTokens?: number;
  /** Dollars, from the price table (src/plan/prices.ts), each response at its own model's price. Default: none. */
  readonly maxCostUsd?: number;
};
export type EgressCap = keyof EgressBudget;

export type RunRegistration = {
  /** The Run's id (the runtime's 16 hex digits, or any id matching EGRESS_RUN_ID_PATTERN). */
  readonly runId: string;
  /** The model API the Run's CLI speaks (its adapter's modelProvider): where its calls go and how they are read. */
  readonly provider: ModelProvider;
  /**
   * The Run's CLI, for the proxy's log only (the proxy never decides by it). It also keeps a proxy
   * older than providers, which routed by it, taking the Run during an upgrade. Default: none.
   */
  readonly cli?: string;
  readonly credential: EgressCredential;
  /** Default: no caps; the Run is still metered. */
  readonly budget?: EgressBudget;
  /**
   * The `host:port` pairs this Run may open a CONNECT tunnel to; `[]` is the model-only policy.
   * Default: the proxy's own allowlist.
   */
  readonly allowlist?: readonly string[];
  /**
   * Where the token is taken from: addresses or CIDR ranges (the Run's own network); `[]` is
   * nowhere until `bind` says. Default: anywhere (a proxy the caller runs for one Run alone).
   */
  readonly sources?: readonly string[];
  /**
   * The token the Run takes, chosen by the caller ahead (a pool member started with it, before any
   * Run): a token as newRunToken makes them, held by no live Run. Worth nothing until registered, and
   * nothing again once revoked. Default: a new one, answered by register.
   */
  readonly token?: string;
};

/**
 * Tokens as the provider reported them. inputTokens is input not read from a cache (Anthropic's
 * input_tokens; OpenAI's input_tokens minus its cached_tokens), so the four never overlap.
 */
export type EgressUsage = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
};

export type EgressBreach = {
  readonly runId: string;
  readonly cap: EgressCap;
  readonly limit: number;
  readonly used: number;
  /** One sentence for a person: which cap, how far past it, and what happened. */
  readonly message: string;
};

/** One model call the proxy forwarded, as the Run's trace shows it (status absent when no answer came). */
export type MeteredCall = ModelCallFacts;

/** What a Run has spent, read from the provider's own answers. */

export type RunMeter = {
  readonly runId: string;
  readonly provider: ModelProvider;
  /** Model calls forwarded (refused ones are not counted). */
  readonly turns: number;
  /** Every request forwarded upstream, model calls and others (count_tokens, models). */
  readonly requests: number;
  /** Requests the proxy answered itself with a refusal (path, budget). */
  readonly refused: number;
  readonly usage: EgressUsage;
  /** inputTokens + outputTokens: what maxTokens is held against. */
  readonly tokens: number;
  readonly costUsd: number;
  /** "dearest_price" when some response's model was not in the price table and was priced at its provider's dearest. */
  readonly costFrom: "price_table" | "dearest_price";
  /** The models the provider named in its answers, in first-seen order. */
  readonly models: readonly string[];
  /** Each settled model call, the first MAX_METERED_CALLS of them (for a span per call); absent from a proxy older than this field. */
  readonly calls?: readonly MeteredCall[];
  /** The first cap passed, once it was. */
  readonly breach?: EgressBreach;
  /** When a byte of an answer last streamed to the Run's agent (ms since the epoch); absent before the first. */
  readonly lastByteAt?: number;
};

export class EgressArgumentError extends AgentcageError {
  override readonly name = "EgressArgumentError";
  readonly code = "invalid_egress_arguments";
}

const CAPS: readonly EgressCap[] = ["maxTurns", "maxTokens", "maxCostUsd"];

/** Throws EgressArgumentError naming the first wrong parameter; returns the registration as given. */
export function validateRegistration(value: unknown): RunRegistration {
  const r = isRecord(value) ? value : fail("registration", value, "must be an object { runId, provider, credential, budget? }");
  const runId = r["runId"];
  if (typeof runId !== "string" || !EGRESS_RUN_ID_PATTERN.test(runId)) {
    fail("runId", runId, "must be 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit; pass the Run's id");
  }
  const provider = r["provider"];
  if (!isModelProvider(provider)) fail("provider", provider, `must be one of ${EGRESS_PROVIDER_NAMES.map((p) => `"${p}"`).join(", ")}`);
  const cli = r["cli"];
  if (cli !== undefined && (typeof cli !== "string" || !/^[a-z][a-z0-9-]{0,31}$/.test(cli)))
    fail("cli", cli, "must be a CLI's name (lower-case letters, digits and '-'), or left out");
  const credential = r["credential"];
  if (!isRecord(credential)) {
    // Not quoted: a credential passed as a bare string is the secret itself.
    throw new EgressArgumentError('credential is missing or not an object; pass { kind: "api_key" | "oauth_token", value }');
  }
  const kind = credential["kind"];
  if (kind !== "api_key" && kind !== "oauth_token") fail("credential.kind", kind, 'must be "api_key" or "oauth_token"');
  const secret = credential["value"];
  if (typeof secret !== "string" || secret.trim() === "") {
    throw new EgressArgumentError("credential.value is empty or not a string; pass the real API key or OAuth token the proxy should send upstream");
  }
  if (secret.length > MAX_CREDENTIAL_LENGTH || /[\0-\x1f\x7f\s]/.test(secret)) {
    // The value itself is never quoted: it is the one thing the proxy exists to keep.
    throw new EgressArgumentError(
      `credential.value (${secret.length} characters, not shown) holds whitespace or control characters or is longer than ${MAX_CREDENTIAL_LENGTH}; pass the key alone, trimmed`,
    );
  }
  const budget = r["budget"];
  if (budget !== undefined) {
    if (!isRecord(budget)) fail("budget", budget, "must be an object { maxTokens?, maxCostUsd?, maxTurns? }");
    for (const key of Object.keys(budget)) {
      if (!(CAPS as readonly string[]).includes(key)) fail(`budget.${key}`, budget[key], `is not a cap; the caps are ${CAPS.join(", ")}`);
    }
    for (const cap of CAPS) {
      const limit = budget[cap];
      if (limit === undefined) continue;
      const whole = cap !== "maxCostUsd";
      if (typeof limit !== "number" || !Number.isFinite(limit) || limit <= 0 || (whole && !Number.isInteger(limit))) {
        fail(
          `budget.${cap}`,
          limit,
          whole ? "must be a positive whole number, or left out for no cap" : "must be a positive number of dollars, or left out for no cap",
        );
      }
    }
  }
  const allowlist = r["allowlist"];
  if (allowlist !== undefined) {
    if (!Array.isArray(allowlist) || allowlist.length > MAX_ALLOWLIST_ENTRIES) {
      fail("allowlist", allowlist, `must be a list of at most ${MAX_ALLOWLIST_ENTRIES} "host:port" strings, [] for none, or left out for the proxy's own`);
    }
    allowlist.forEach((entry: unknown, i: number) => {
      if (typeof entry !== "string" || connectTarget(entry) === undefined)
        fail(`allowlist[${i}]`, entry, 'is not host:port; write a host name or address and its port, such as "example.com:443"');
    });
  }
  const sources = r["sources"];
  if (sources !== undefined) validateSources("sources", sources);
  const token = r["token"];
  if (token !== undefined && (typeof token !== "string" || !RUN_TOKEN_PATTERN.test(token))) {
    // Not quoted: a token is a secret.
    throw new EgressArgumentError(
      `token (${typeof token === "string" ? `${token.length} characters, not shown` : typeof token}) is not a per-Run token: "${RUN_TOKEN_PREFIX}" and ${RUN_TOKEN_BYTES} random bytes in base64url; make one with newRunToken(), or leave it out for a new one`,
    );
  }
  return r as RunRegistration;
}

/** Throws EgressArgumentError unless `value` is a list of IP addresses and CIDR ranges. */
export function validateSources(name: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length > MAX_ALLOWLIST_ENTRIES)
    fail(name, value, `must be a list of at most ${MAX_ALLOWLIST_ENTRIES} addresses or CIDR ranges, such as "172.30.0.0/16"`);
  value.forEach((entry: unknown, i: number) => {
    if (typeof entry !== "string" || parseSource(entry) === undefined)
      fail(`${name}[${i}]`, entry, 'is not an address or CIDR range; write one such as "172.30.0.0/16" or "172.30.0.2"');
  });
  return value as readonly string[];
}

/** An address or CIDR range as BlockList takes it; undefined when it is neither. */
export function parseSource(text: string): { readonly address: string; readonly prefix: number; readonly family: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefixText, extra] = text.split("/");
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const most = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? most : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > most) return undefined;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(parameter: string, value: unknown, what: string): never {
  throw new EgressArgumentError(`${parameter} ${quote(value)} ${what}`);
}

function quote(value: unknown): string {
  if (value === undefined) return "(missing)";
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
