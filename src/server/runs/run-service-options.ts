// What the service's Runs are built from (the runners, the directory, the slots and the bound, who
// is told of an end) and what one Run is asked (an agent request plus prompt, labels and writable).
// Declared once, below every step of the service, so each step reads the same words.

import type { AgentOutcome, AgentRunner } from "../../runner/index.js";
import type { AgentEvent, AgentRequestInput } from "../../agents/index.js";
import type { Caller } from "../caller.js";
import type { RunFiles, RunRecord, RunStore } from "./store.js";

/** What POST /v1/runs asks: an agent request plus the prompt, labels, whether the agent edits a copy of its inputs, and where its webhooks go. */
export type ServiceRunRequest = AgentRequestInput & {
  readonly prompt: string;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly writable?: boolean | undefined;
  readonly callbackUrl?: string | undefined;
};

/** A tenant's quotas as they hold now: its own, or the service's defaults. */
export type ResolvedQuotas = { readonly maxRunning: number; readonly maxQueued: number; readonly dailySpendUsd?: number };

/** What happened to a Run, told once each as it happens: to the events feed, the webhooks. */
export type LifecycleType = "run.queued" | "run.started" | "run.finished" | "run.deleted";
export type Lifecycle = { readonly type: LifecycleType; readonly record: RunRecord; readonly at: string };

/** What a Run's end tells the metrics: its end reason, its times, and what its agent reported using. */
export type RunEnd = Pick<AgentOutcome, "reason" | "durationMs" | "queuedMs" | "result">;

export type RunServiceOptions = {
  readonly runner: AgentRunner;
  /** The runner for a request with `writable: true`: the same, its Agent Container's work/ writable (staging.writableWork); default none, and such a request is refused. */
  readonly writableRunner?: AgentRunner;
  /** The record of the Runs (made once by serve, and handed to the webhooks too). */
  readonly store: RunStore;
  /** The Run directories the runner is handed its inputs and Harvest in. */
  readonly files: RunFiles;
  readonly slots: number;
  readonly queueBound: number;
  /** Whether the runner keeps sessions (created with sessions: true); default false: a request with resumeSession is refused before it is a Run. */
  readonly sessions?: boolean;
  /** Told of a Run whose record could not be written; default: nobody (it is logged by the caller). */
  readonly onError?: (id: string, error: unknown) => void;
  /** Told of every Run that ends, with its request, how it ended and its tenant (for metrics), a Run cancelled while queued too; default: nobody. */
  readonly onEnd?: (request: ServiceRunRequest, end: RunEnd, tenant: string) => void;
  /** Told of every event a Run's agent (or its guards) told, with its tenant (for metrics); must not throw; default: nobody. */
  readonly onAgentEvent?: (event: AgentEvent, tenant: string) => void;
  /** A tenant's quotas; default: every tenant may use every slot and the whole bound, with no spend cap. */
  readonly quotasOf?: (tenant: string) => ResolvedQuotas;
  /** What the runners cannot honour of a request (on Kubernetes: a session to resume), naming its field and value; checked first; default: nothing. */
  readonly requestRefusal?: (request: ServiceRunRequest) => string | undefined;
  /** What to do instead, for a request whose callback URL (or its tenant's) the service may not post to; default: every one may be. */
  readonly callbackRefusal?: (request: ServiceRunRequest, owner: Caller) => Promise<string | undefined>;
  /** Told of each step of every Run's life (queued, started, finished, deleted), after it is recorded; default: nobody. */
  readonly onLifecycle?: (change: Lifecycle) => void;
};
