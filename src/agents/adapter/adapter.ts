// What an agent CLI is to agentcage, in one value: its argv, its stdin and the reader of its
// stream, its credentials, how it is pointed at an endpoint and handed the egress proxy's token, where
// it keeps its sessions, which caps it holds itself, its image pin and its model provider.
// Invariant: nothing outside an adapter's own folder decides by a CLI's name; every place that needs
// to differ per CLI asks its adapter (the probe in test/repository/agent-branches.test.ts holds this).

import type { ModelProvider } from "../../plan/index.js";
import type { AgentResult, StreamParseOptions } from "./result.js";

/** The fields of a validated agent request an adapter reads; the prompt is not here (it goes on stdin). */
export type AdapterRequest = {
  readonly model?: string | undefined;
  readonly effort?: string | undefined;
  readonly web: boolean;
  readonly noTools: boolean;
  /** 0: no limit. */
  readonly maxTurns: number;
  readonly systemPrompt?: string | undefined;
  readonly resumeSession?: string | undefined;
  readonly budget?: { readonly maxCostUsd?: number | undefined } | undefined;
};

/** A model provider other than the CLI's own for codex (a gateway, or a stand-in model): the runner's `codexProvider`. */
export type CodexProvider = {
  readonly baseUrl: string;
  /** The variable holding the key; default OPENAI_API_KEY. */
  readonly envKey?: string;
  /** Retries of a failed request or stream by codex itself; default 0 (the caller decides, from the Outcome). */
  readonly maxRetries?: number;
  /**
   * The model a request that names none runs with, for a provider that serves another than the
   * CLI's own default; default: the CLI's.
   */
  readonly model?: string;
};

/**
 * What the Operator said about where the CLIs speak (the runner's options by their names), or the
 * egress proxy every CLI speaks to instead. Each adapter reads what concerns it: `endpointOf`.
 */
export type EndpointOverrides = {
  /** For claude: ANTHROPIC_BASE_URL (a gateway, or a stand-in model); default: the CLI's own. */
  readonly anthropicBaseUrl?: string;
  /** For codex: its model provider (a gateway, or a stand-in model); default: the CLI's own. */
  readonly codexProvider?: CodexProvider;
  /** The egress proxy, which wins over both: its base URL, and the model codex runs by default behind it. */
  readonly proxy?: { readonly baseUrl: string; readonly codexModel?: string };
};

/** Where one CLI speaks when not at its own provider: its base URL as the CLI takes it. */
export type AgentEndpoint = {
  readonly baseUrl: string;
  /** The variable the CLI reads its key from there; default: the variable the credential was found in. */
  readonly keyVariable?: string;
  /** The model a request that names none runs with there; default: the CLI's own. */
  readonly model?: string;
  /** Retries of a failed call by the CLI itself; default 0. */
  readonly maxRetries?: number;
};

/** What a Run's plan needs beside the request. */
export type AdapterPlanContext = {
  /** The agent's working directory inside the container (the staged work/). */
  readonly workdir: string;
  /** Write the session where a later Run can resume it. */
  readonly keepSession: boolean;
  /** Where the CLI speaks; undefined: its own provider. */
  readonly endpoint: AgentEndpoint | undefined;
  /** The prompt comes as a message the CLI waits for however late (a head start's); only for an adapter with `waitsForPrompt`. */
  readonly streamInput: boolean;
  /** The command that prints the key (the CLI's key helper); only for an adapter with `keyHelperVariable`. Default: the key is in its environment. */
  readonly keyHelper?: string;
};

/** One Run's plan as the adapter makes it: the words after the image, what goes on stdin, and the reader of its stdout. */
export type AdapterPlan = {
  readonly args: string[];
  readonly stdin: string;
  readonly read: (stdout: AsyncIterable<Uint8Array>, options: StreamParseOptions) => Promise<AgentResult>;
};

/** A credential variable and what it holds. */
export type CredentialVariable = readonly [variable: string, kind: "oauth_token" | "api_key"];

export type AgentAdapter = {
  /** The CLI's name: what a request's `cli` says, its command in the image, its Session Store's namespace. */
  readonly cli: string;
  /** Who makes it, for people ("Anthropic's claude CLI"). */
  readonly maker: string;
  /** The model API it speaks: its prices, and the egress proxy's file for it. */
  readonly modelProvider: ModelProvider;
  /** The reasoning efforts it takes (checked against the pinned version). */
  readonly efforts: readonly string[];
  /** Where its credential is looked for, in order of preference: subscription first, then API keys. */
  readonly credentials: readonly CredentialVariable[];
  /** A login of its own kept as a file (codex's auth.json): its name in a login directory and where the CLI reads it; default none. */
  readonly login?: { readonly fileName: string; readonly agentPath: string };
  /** The variable that carries the egress proxy's per-Run token in its key's stead. */
  readonly proxyTokenVariable: string;
  /** The API key variable it can read through a key helper instead (claude's apiKeyHelper); default none. */
  readonly keyHelperVariable?: string;
  /** Where it keeps what resuming a session needs, inside the container. */
  readonly sessionPath: string;
  /** It holds a request's maxTurns itself (claude's --max-turns); else the runner counts turns from its stream. */
  readonly holdsMaxTurns: boolean;
  /** Its stream reports tokens as it goes; else a token or dollar cap holds only behind the egress proxy. */
  readonly reportsTokensLive: boolean;
  /** It can start before its prompt and wait for it however late (a pool's head start). */
  readonly waitsForPrompt: boolean;
  /** Its pin in images/agent/clis.env: the variables naming its version and its package's integrity. */
  readonly pin: { readonly version: string; readonly integrity: string };
  /** For the A2A agent card: examples of what to ask it. */
  readonly examples: readonly string[];
  /** Where it speaks, from the Operator's overrides (the egress proxy first); undefined: its own provider. */
  readonly endpointOf: (overrides: EndpointOverrides) => AgentEndpoint | undefined;
  /** The variable its key goes in, found in `found`, where it speaks. */
  readonly keyVariableOf: (found: string, endpoint: AgentEndpoint | undefined) => string;
  /** Its public (non-secret) variables: its state on the tmpfs, its quiet switches, where it speaks, its own retries. */
  readonly environment: (endpoint: AgentEndpoint | undefined, apiRetries?: number) => Record<string, string>;
  readonly plan: (request: AdapterRequest, prompt: string, context: AdapterPlanContext) => AdapterPlan;
};
