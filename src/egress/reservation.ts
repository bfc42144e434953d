// The worst a model call can spend, read from its body before it is forwarded: every byte of the
// body as an input token (a byte-level tokenizer makes at most one token of a byte, so this bounds
// uncached and cache-written input alike) and the output bound the call names, priced at the
// dearer of input and cache-write and at its model's output price. An over-estimate on purpose:
// it only decides whether a call waits for the calls in flight, never whether it is refused.

import { costOf, priceOf } from "../plan/index.js";
import { DEFAULT_WORST_OUTPUT_TOKENS } from "./limits.js";
import type { Reservation } from "./meter.js";
import type { ModelProvider } from "../plan/index.js";
import { EGRESS_PROVIDERS } from "./providers/index.js";

/** The reservation of one model call to `provider` whose decoded body is `body`, `bytes` long. */
export function worstCaseOf(provider: ModelProvider, body: Readonly<Record<string, unknown>>, bytes: number): Reservation {
  const bound = body[EGRESS_PROVIDERS[provider].outputBoundField];
  const outputTokens = typeof bound === "number" && Number.isFinite(bound) && bound > 0 ? Math.ceil(bound) : DEFAULT_WORST_OUTPUT_TOKENS;
  const model = typeof body["model"] === "string" ? body["model"] : undefined;
  const { price } = priceOf(provider, model);
  const inputPrice = { ...price, input: Math.max(price.input, price.cacheWrite) };
  return {
    tokens: bytes + outputTokens,
    costUsd: costOf({ inputTokens: bytes, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }, inputPrice),
  };
}
