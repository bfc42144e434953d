/**
 * The model providers the egress proxy forwards to, one file each, in one record keyed by the price
 * table's provider names (an agent adapter names its provider by that key). Adding a model API is
 * a file here and one line in the record.
 *
 * ```ts
 * const route = EGRESS_PROVIDERS.anthropic.routes.find((r) => r.method === "POST" && r.path === "/v1/messages");
 * ```
 */
import type { ModelProvider } from "../../plan/index.js";
import { anthropicProvider } from "./anthropic.js";
import { openaiProvider } from "./openai.js";
import type { EgressProvider } from "./provider.js";

export type { EgressProvider, ProviderCredential, Route, UsageState } from "./provider.js";

export const EGRESS_PROVIDERS: Readonly<Record<ModelProvider, EgressProvider>> = {
  anthropic: anthropicProvider,
  openai: openaiProvider,
};

/** Every provider's name, in the record's order. */
export const EGRESS_PROVIDER_NAMES = Object.keys(EGRESS_PROVIDERS) as readonly ModelProvider[];

/** Whether a value names a provider of the record. */
export function isModelProvider(value: unknown): value is ModelProvider {
  return typeof value === "string" && Object.hasOwn(EGRESS_PROVIDERS, value);
}
