// What makes a runtime less than it says while it still goes on: a pool that cannot fill, a Run
// network range that clashes with a route, an engine gone, an egress proxy found gone. The part that
// meets one raises it and the same part clears it when it mends; the board logs one line when one
// begins and one when it ends, however often its cause repeats meanwhile.
// Invariant: at most one entry per kind and subject; list() is what holds now, oldest first.

import type { Logger } from "pino";

/** Every kind, each a part of the service that can be less than it says. */
export const DEGRADATION_KINDS = ["pool", "run-network-range", "engine", "egress-proxy"] as const;
export type DegradationKind = (typeof DEGRADATION_KINDS)[number];

export type Degradation = {
  readonly kind: DegradationKind;
  /** Which one, where a kind can hold several at once (an engine's name); "" otherwise. */
  readonly subject: string;
  /** One sentence: what is wrong and what happens meanwhile, with the deployment's own details (for a key's eyes and the log). */
  readonly reason: string;
  /** What the Operator can do about it. */
  readonly fix: string;
  /** True when no Run that needs the part can start while it lasts, not only less well. */
  readonly stopsRuns: boolean;
  /** When it began (ISO 8601). */
  readonly since: string;
};

/** What a part reports: a degradation without its start, which the board keeps. */
export type DegradationReport = Omit<Degradation, "since" | "subject" | "stopsRuns"> & {
  /** Default "". */
  readonly subject?: string;
  /** Default false. */
  readonly stopsRuns?: boolean;
};

export type Degradations = {
  /** Begins one (logged once), or says anew why one that holds still does (not logged again). */
  readonly raise: (report: DegradationReport) => void;
  /** Ends one (logged once); one that does not hold is left as it is. */
  readonly clear: (kind: DegradationKind, subject?: string) => void;
  readonly list: () => readonly Degradation[];
  /** How many times each kind has begun since the board was made. */
  readonly begun: () => Readonly<Record<DegradationKind, number>>;
};

/** The board as a reader sees it: what holds now and how often each kind began. */
export type DegradationView = Pick<Degradations, "list" | "begun">;

export function createDegradations(logger: Logger, now: () => number = Date.now): Degradations {
  const held = new Map<string, Degradation & { readonly sinceMs: number }>();
  const begun = Object.fromEntries(DEGRADATION_KINDS.map((kind) => [kind, 0])) as Record<DegradationKind, number>;
  const keyOf = (kind: DegradationKind, subject: string): string => `${kind}\0${subject}`;
  return {
    raise: (report) => {
      const subject = report.subject ?? "";
      const key = keyOf(report.kind, subject);
      const before = held.get(key);
      const sinceMs = before?.sinceMs ?? now();
      const since = before?.since ?? new Date(sinceMs).toISOString();
      held.set(key, { kind: report.kind, subject, reason: report.reason, fix: report.fix, stopsRuns: report.stopsRuns === true, since, sinceMs });
      if (before !== undefined) return;
      begun[report.kind] += 1;
      logger.warn({ degraded: report.kind, ...(subject === "" ? {} : { subject }), reason: report.reason, fix: report.fix }, "degraded");
    },
    clear: (kind, subject = "") => {
      const key = keyOf(kind, subject);
      const before = held.get(key);
      if (before === undefined) return;
      held.delete(key);
      logger.info({ degraded: kind, ...(subject === "" ? {} : { subject }), lastedMs: now() - before.sinceMs }, "no longer degraded");
    },
    list: () => [...held.values()].map(({ sinceMs: _sinceMs, ...degradation }) => degradation),
    begun: () => ({ ...begun }),
  };
}
