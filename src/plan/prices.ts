// What a model's tokens cost, for a budget's maxCostUsd while a Run goes (claude reports its own
// cost only at the end, codex never) and for the egress proxy's meter: one table per model provider,
// the one list of providers (an agent adapter names its own; the egress proxy keeps a file for each).
// Dollars per million tokens. Anthropic's are the pinned claude's own (2.1.332's model catalog, its
// pricing_tiers), so the proxy's meter and claude's own cost agree on the same answer; OpenAI's are
// its API pricing page as of 2025-11 (codex prints no cost). Update them with a CLI's pin, and the
// date. A model not listed is priced at its provider's dearest entry, so a cap errs on the safe side.

/** Tokens of one kind each, as both the agents' usage and the proxy's meter count them. */
export type TokenCounts = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
};

export const PRICES_AS_OF = "2026-12";

/** Per million tokens: input, output, cached input read, cache written. */
export type Price = { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheWrite: number };

/** The first entry whose prefix starts the model's name wins: longer prefixes first. */
const PRICES = {
  anthropic: [
    // Each model id claude 2.1.332 sends (first-party), and its catalog's tier.
    ["claude-opus-5-5", { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 }],
    ["claude-opus-5", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ["claude-opus-4-8", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ["claude-opus-4-7", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ["claude-opus-4-6", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ["claude-opus-4-5", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ["claude-sonnet-5-5", { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 }],
    ["claude-sonnet-5", { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 }],
    ["claude-3-7-sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    ["claude-3-5-sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    // claude-haiku-5-5's long prompts (over 100,000 tokens) cost five times this; the table keeps one price a model.
    ["claude-haiku-5-5", { input: 0.1, output: 0.5, cacheRead: 0.01, cacheWrite: 0.125 }],
    ["claude-haiku-4-5", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
    ["claude-3-5-haiku", { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }],
    ["claude-fable-5-2", { input: 8, output: 40, cacheRead: 0.2, cacheWrite: 10 }],
    ["claude-fable-5-1", { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 }],
    ["claude-fable-5", { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 }],
    ["claude-mythos-5-2", { input: 8, output: 40, cacheRead: 0.2, cacheWrite: 10 }],
    ["claude-mythos-5-1", { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 }],
    ["claude-mythos-5", { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 }],
    // A family's other ids (claude-opus-4-1, claude-sonnet-4-5, ...) at its dearest listed price.
    ["claude-opus", { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
    ["claude-sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    ["claude-haiku", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
    // claude's aliases, as the pinned claude resolves them (opus: claude-opus-5-5, sonnet: claude-sonnet-5-5, haiku: claude-haiku-5-5).
    ["opus", { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 }],
    ["sonnet", { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 }],
    ["haiku", { input: 0.1, output: 0.5, cacheRead: 0.01, cacheWrite: 0.125 }],
  ],
  openai: [
    ["gpt-5-mini", { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 }],
    ["gpt-5-nano", { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 }],
    ["gpt-5", { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }],
    ["o3", { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 }],
    ["gpt-4.1", { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 }],
  ],
} as const satisfies Readonly<Record<string, ReadonlyArray<readonly [prefix: string, price: Price]>>>;

/** A model API, as the price table and the egress proxy know it: "anthropic", "openai". */
export type ModelProvider = keyof typeof PRICES;

/** Every model provider priced, in the table's order. */
export const MODEL_PROVIDERS = Object.keys(PRICES) as readonly ModelProvider[];

/** The model's price, or the provider's dearest when the model is unknown (and which it was). */
export function priceOf(provider: ModelProvider, model: string | undefined): { readonly price: Price; readonly known: boolean } {
  const entries: ReadonlyArray<readonly [string, Price]> = PRICES[provider];
  const found = model === undefined ? undefined : entries.find(([prefix]) => model.toLowerCase().startsWith(prefix));
  if (found !== undefined) return { price: found[1], known: true };
  const dearest = entries.reduce((a, b) => (b[1].output > a[1].output ? b : a));
  return { price: dearest[1], known: false };
}

/** Dollars for the tokens at the price. */
export function costOf(usage: TokenCounts, price: Price): number {
  return (
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheReadTokens * price.cacheRead +
      usage.cacheWriteTokens * price.cacheWrite) /
    1_000_000
  );
}
