// A Run as the proxy holds it while it is live (its meter, its masker, what it has in flight), and
// the fields of one request's log line. Kept out of proxy.ts so that tunnel.ts reads them without
// importing the proxy that imports it.

import type { BlockList } from "node:net";
import type { Masker } from "../redact/index.js";
import type { Meter } from "./meter.js";
import type { RefusalCode } from "./refusals.js";
import type { HeldBytes } from "./request-body.js";
import type { EgressUsage, RunRegistration } from "./run.js";

export type LiveRun = {
  readonly registration: RunRegistration;
  readonly key: string;
  readonly meter: Meter;
  /** Masks the Run's real credential in everything the proxy hands its agent. */
  readonly answerMasker: Masker;
  /** Requests and tunnels in flight: revoke stops each (metering what it saw first). */
  readonly inFlight: Set<() => void>;
  /** Bytes of this Run's model-call bodies the proxy holds now. */
  readonly heldBytes: HeldBytes;
  /** This Run's requests being answered now. */
  requestsInFlight: number;
  /** This Run's CONNECT tunnels open now. */
  tunnels: number;
  /** Where its token is taken from; undefined: anywhere. */
  sources: BlockList | undefined;
};

/** One log line's fields; `tokens` only for a metered answer. */
export type RequestLog = {
  runId?: string;
  method: string;
  host?: string;
  path?: string;
  status?: number;
  bytesIn: number;
  bytesOut: number;
  tokens?: EgressUsage;
  durationMs?: number;
  refused?: RefusalCode;
  error?: string;
};
