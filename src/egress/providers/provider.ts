// What the egress proxy knows of one model API: where it is, which calls it forwards, how the real
// credential is written on the way out, what a call may spend, how an answer's usage is read, and
// how a refused call is answered. One file per provider (anthropic.ts, openai.ts); the proxy never
// loads an agent adapter, and an adapter names its provider by key (ModelProvider).

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

export type Route = {
  readonly method: string;
  readonly path: string;
  /** A model call: counted as a turn, held against the budget, refused once it is spent. */
  readonly modelCall: boolean;
};

/** The real credential the proxy sends upstream in the Run's stead. */
export type ProviderCredential = { readonly kind: "api_key" | "oauth_token"; readonly value: string };

/**
 * Tokens as the provider reported them. inputTokens is input not read from a cache (Anthropic's
 * input_tokens; OpenAI's input_tokens minus its cached_tokens), so the four never overlap.
 */
export type ProviderUsage = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
};

/** What one answer said it used, and the model it named. */
export type AnswerUsage = { readonly usage: ProviderUsage; readonly model?: string };

type Json = Record<string, unknown>;

/** A reader of one answer's usage, fed its server-sent events or its JSON body. */
export type UsageState = {
  /** Event names worth parsing; every other event passes unparsed. */
  readonly wanted: ReadonlySet<string>;
  readonly onEvent: (name: string, data: Json) => void;
  readonly onBody: (body: Json | undefined) => void;
  readonly result: () => AnswerUsage | undefined;
};

export type EgressProvider = {
  /** Its production API; a test points it at the stand-in model instead. */
  readonly defaultUpstream: string;
  /** The proxy's variable naming another upstream for it (a gateway of the Operator's). */
  readonly upstreamVariable: string;
  /**
   * The status a budget refusal is answered with: one its CLIs neither retry nor work around
   * (checked with the real CLIs).
   */
  readonly budgetRefusalStatus: number;
  /** Exact paths (no prefix matching, no normalising): `/v1/messages/../x` is simply not listed. */
  readonly routes: readonly Route[];
  /** The body field bounding a call's output tokens, for its reservation. */
  readonly outputBoundField: string;
  /** Why a call's headers are refused (a feature that reaches other hosts), or undefined; default: none refused. */
  readonly refusedHeaders?: (headers: IncomingHttpHeaders) => string | undefined;
  /** Why a model call's body is refused (a tool that reaches other hosts), or undefined; default: none refused. */
  readonly refusedBody?: (body: Readonly<Record<string, unknown>>) => string | undefined;
  /** Writes the real credential into the headers sent upstream (every client credential header is already gone). */
  readonly writeCredential: (credential: ProviderCredential, out: OutgoingHttpHeaders) => void;
  /** A fresh reader of one answer's usage. */
  readonly usageState: () => UsageState;
};

export function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A token count: a finite number at least 0, floored; undefined for anything else. */
export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

export function answerUsage(usage: ProviderUsage | undefined, model: string | undefined): AnswerUsage | undefined {
  if (usage === undefined) return undefined;
  return model === undefined ? { usage } : { usage, model };
}
