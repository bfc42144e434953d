// What a model's tokens cost, for a budget's maxCostUsd while a Run goes (claude reports its own
// cost only at the end, codex never) and for the egress proxy's meter: one table for both.
// Dollars per million tokens, as the providers publish them. Prices as of 2025-11, from
// Anthropic's and OpenAI's API pricing pages; update them here, with the date. A model not listed
// is priced at its CLI's dearest entry, so a cap errs on the safe side.

/** The CLIs whose models are priced. */
export type PricedCli = "claude" | "codex";

/** Tokens of one kind each, as both the agents' usage and the proxy's meter count them. */
export type TokenCounts = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
};

export const PRICES_AS_OF = "2025-11";

/** Per million tokens: input, output, cached input read, cache written. */
export type Price = { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheWrite: number };

/** The first entry whose prefix starts the model's name wins: longer prefixes first. */
const PRICES: Readonly<Record<PricedCli, ReadonlyArray<readonly [prefix: string, price: Price]>>> = {
  claude: [
    ["claude-opus-4-5", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ["claude-opus", { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
    ["opus", { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
    ["claude-sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    ["sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    ["claude-haiku-4-5", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
    ["claude-haiku", { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }],
    ["haiku", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
  ],
  codex: [
    ["gpt-5-mini", { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 }],
    ["gpt-5-nano", { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0 }],
    ["gpt-5", { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 }],
    ["o3", { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 }],
    ["gpt-4.1", { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 }],
  ],
};

/** The model's price, or the CLI's dearest when the model is unknown (and which it was). */
export function priceOf(cli: PricedCli, model: string | undefined): { readonly price: Price; readonly known: boolean } {
  const entries = PRICES[cli];
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
