// A store's index of its Runs: one small entry per Run kept (what the list's filters, the usage sums,
// a start and the session check need, never its request, events or Outcome), in memory, answering a
// page in the cost of the page and a usage query in the cost of its day buckets, never of every Run
// kept. Both stores keep one; the file store also writes it down (store-files-index.ts) so that a
// start reads it instead of every Run's files. Invariant: every list here stays sorted by (createdAt, id).

import { DAY_MS } from "../../container/index.js";
import type { RunQuery, RunRecord, RunState, StoredDelivery } from "./store.js";
import { TERMINAL_STATES } from "./store.js";
import { addRun, addTotals, zeroTotals, type TenantUsage } from "./usage.js";

/** What the index keeps of one Run (as the file store's index files hold it, one JSON object each). */
export type IndexEntry = {
  readonly id: string;
  readonly createdAt: string;
  readonly tenant: string;
  readonly state: RunState;
  readonly cli?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly idempotencyKey?: string;
  readonly endedAt?: string;
  readonly reason?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
  /** The session its Outcome ended with (result.sessionId). */
  readonly session?: string;
  /** The webhooks it owes and has neither delivered nor given up (deliveries.jsonl), by id. */
  readonly owes?: readonly string[];
};

export type RunIndex = {
  readonly upsert: (entry: IndexEntry) => void;
  readonly remove: (id: string) => void;
  readonly get: (id: string) => IndexEntry | undefined;
  readonly size: () => number;
  readonly entries: () => IterableIterator<IndexEntry>;
  /** The page's entries, and whether more follow it. */
  readonly page: (query: RunQuery) => { readonly entries: IndexEntry[]; readonly more: boolean };
  /** Each tenant's Runs that ended at or after `since` (epoch ms), summed; one tenant's only when named. */
  readonly usage: (since: number, tenant?: string) => TenantUsage[];
  /** The Runs that have not ended, oldest first. */
  readonly live: () => IndexEntry[];
  /** The ids of the Runs that ended before `cutoff` (epoch ms). */
  readonly endedBefore: (cutoff: number) => string[];
  /** The oldest Run kept that ended with `session`. */
  readonly sessionOwner: (session: string) => IndexEntry | undefined;
  /** The ids of the Runs that owe a webhook. */
  readonly owing: () => string[];
  /** Every tenant with a Run kept. */
  readonly tenants: () => string[];
};

/** The entry of a record, keeping what only the index knows of it (its session, the webhooks it owes) from `before`. */
export function entryOf(record: RunRecord, before?: Pick<IndexEntry, "session" | "owes">): IndexEntry {
  const { inputTokens, outputTokens, costUsd } = record.usage ?? {};
  return {
    id: record.id,
    createdAt: record.createdAt,
    tenant: record.tenant,
    state: record.state,
    ...(record.cli === undefined ? {} : { cli: record.cli }),
    labels: record.labels,
    ...(record.idempotencyKey === undefined ? {} : { idempotencyKey: record.idempotencyKey }),
    ...(record.endedAt === undefined ? {} : { endedAt: record.endedAt }),
    ...(record.reason === undefined ? {} : { reason: record.reason }),
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(outputTokens === undefined ? {} : { outputTokens }),
    ...(costUsd === undefined ? {} : { costUsd }),
    ...(before?.session === undefined ? {} : { session: before.session }),
    ...(before?.owes === undefined || before.owes.length === 0 ? {} : { owes: before.owes }),
  };
}

/** The session an Outcome ended with (its result.sessionId), if any. */
export function sessionOf(outcome: unknown): string | undefined {
  const session = (outcome as { result?: { sessionId?: unknown } } | undefined)?.result?.sessionId;
  return typeof session === "string" ? session : undefined;
}

/** The webhooks still owed after one more line of a Run's deliveries (as the webhooks' resume reads them: owed, then delivered, out of attempts or abandoned); `owes` itself when the line changes nothing. */
export function owedAfter(owes: readonly string[] | undefined, line: StoredDelivery): readonly string[] | undefined {
  const now = owes ?? [];
  if (line.kind === "owed") return line.url === undefined || line.payload === undefined || now.includes(line.webhookId) ? owes : [...now, line.webhookId];
  if (!now.includes(line.webhookId)) return owes;
  const over = line.kind === "abandoned" || line.delivered === true || line.nextAttemptAt === undefined;
  return over ? now.filter((id) => id !== line.webhookId) : owes;
}

const compare = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The first place in `list` whose entry sorts at or after `at`. */
function lowerBound(list: readonly IndexEntry[], at: { createdAt: string; id: string }): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(list[middle] as IndexEntry, at) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The lists an entry is in, beside the list of all: by tenant, state, CLI and each label. */
function keysOf(entry: IndexEntry): string[] {
  return [
    `t\0${entry.tenant}`,
    `s\0${entry.state}`,
    ...(entry.cli === undefined ? [] : [`c\0${entry.cli}`]),
    ...Object.entries(entry.labels).map(([key, value]) => `l\0${key}=${value}`),
  ];
}

/** One UTC day's ended Runs, and their sums per tenant (undefined once a Run left the day: summed again when asked). */
type Day = { readonly ended: Map<string, IndexEntry>; sums: Map<string, TenantUsage> | undefined };

const dayOf = (endedAt: string): number => Math.floor(Date.parse(endedAt) / DAY_MS);

function addToUsage(sums: Map<string, TenantUsage>, entry: IndexEntry): void {
  const usage = sums.get(entry.tenant) ?? { tenant: entry.tenant, totals: zeroTotals(), labels: {} };
  sums.set(entry.tenant, usage);
  addRun(usage.totals, entry);
  for (const [key, value] of Object.entries(entry.labels)) {
    const label = `${key}=${value}`;
    const totals = usage.labels[label] ?? zeroTotals();
    usage.labels[label] = totals;
    addRun(totals, entry);
  }
}

/** Whether two entries count the same in the usage sums. */
function sameUsage(a: IndexEntry, b: IndexEntry): boolean {
  return (
    a.tenant === b.tenant &&
    a.state === b.state &&
    a.endedAt === b.endedAt &&
    a.reason === b.reason &&
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.costUsd === b.costUsd &&
    a.labels === b.labels
  );
}

export function createRunIndex(): RunIndex {
  const byId = new Map<string, IndexEntry>();
  const all: IndexEntry[] = [];
  const lists = new Map<string, IndexEntry[]>();
  const live = new Map<string, IndexEntry>();
  const days = new Map<number, Day>();
  const sessions = new Map<string, Set<string>>();
  const owing = new Set<string>();
  const tenants = new Map<string, number>();
  // One copy of each tenant name and label set, however many Runs carry it: an entry holds a reference.
  const interned = new Map<string, string>();
  const labelSets = new Map<string, Readonly<Record<string, string>>>();
  const intern = (text: string): string => {
    const known = interned.get(text);
    if (known !== undefined) return known;
    interned.set(text, text);
    return text;
  };
  const internLabels = (labels: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
    const key = JSON.stringify(labels);
    const known = labelSets.get(key);
    if (known !== undefined) return known;
    labelSets.set(key, labels);
    return labels;
  };

  const insert = (list: IndexEntry[], entry: IndexEntry) => {
    const at = list.length === 0 || compare(list[list.length - 1] as IndexEntry, entry) < 0 ? list.length : lowerBound(list, entry);
    list.splice(at, 0, entry);
  };
  const take = (list: IndexEntry[], entry: IndexEntry) => {
    const at = lowerBound(list, entry);
    if (list[at]?.id === entry.id) list.splice(at, 1);
  };

  const leave = (entry: IndexEntry, next: IndexEntry | undefined) => {
    take(all, entry);
    for (const key of keysOf(entry)) {
      const list = lists.get(key);
      if (list === undefined) continue;
      take(list, entry);
      if (list.length === 0) lists.delete(key);
    }
    live.delete(entry.id);
    if (entry.endedAt !== undefined) {
      const day = days.get(dayOf(entry.endedAt));
      if (day !== undefined) {
        day.ended.delete(entry.id);
        if (next === undefined || !sameUsage(entry, next)) day.sums = undefined;
        if (day.ended.size === 0) days.delete(dayOf(entry.endedAt));
      }
    }
    if (entry.session !== undefined) {
      const ids = sessions.get(entry.session);
      ids?.delete(entry.id);
      if (ids?.size === 0) sessions.delete(entry.session);
    }
    owing.delete(entry.id);
    const count = (tenants.get(entry.tenant) ?? 1) - 1;
    if (count === 0) tenants.delete(entry.tenant);
    else tenants.set(entry.tenant, count);
  };

  const enter = (entry: IndexEntry, before: IndexEntry | undefined) => {
    byId.set(entry.id, entry);
    insert(all, entry);
    for (const key of keysOf(entry)) {
      const list = lists.get(key) ?? [];
      lists.set(key, list);
      insert(list, entry);
    }
    if (!TERMINAL_STATES.has(entry.state)) live.set(entry.id, entry);
    if (entry.endedAt !== undefined && Number.isFinite(Date.parse(entry.endedAt))) {
      const number = dayOf(entry.endedAt);
      const known = days.get(number);
      const day = known ?? { ended: new Map<string, IndexEntry>(), sums: new Map<string, TenantUsage>() };
      days.set(number, day);
      day.ended.set(entry.id, entry);
      // Already in the day's sums when it was there before and counts the same.
      const summed = known !== undefined && before !== undefined && sameUsage(before, entry);
      if (day.sums !== undefined && !summed) addToUsage(day.sums, entry);
    }
    if (entry.session !== undefined) {
      const ids = sessions.get(entry.session) ?? new Set<string>();
      sessions.set(entry.session, ids);
      ids.add(entry.id);
    }
    if (entry.owes !== undefined && entry.owes.length > 0) owing.add(entry.id);
    tenants.set(entry.tenant, (tenants.get(entry.tenant) ?? 0) + 1);
  };

  const sumsOf = (day: Day): Map<string, TenantUsage> => {
    if (day.sums !== undefined) return day.sums;
    const sums = new Map<string, TenantUsage>();
    for (const entry of day.ended.values()) addToUsage(sums, entry);
    day.sums = sums;
    return sums;
  };

  return {
    upsert: (given) => {
      const before = byId.get(given.id);
      const { owes, ...rest } = given;
      const entry: IndexEntry = {
        ...rest,
        ...(owes === undefined || owes.length === 0 ? {} : { owes }),
        tenant: intern(given.tenant),
        createdAt: given.createdAt,
        labels: internLabels(given.labels),
        ...(given.cli === undefined ? {} : { cli: intern(given.cli) }),
        ...(given.reason === undefined ? {} : { reason: intern(given.reason) }),
      };
      if (before !== undefined) leave(before, entry);
      enter(entry, before);
    },
    remove: (id) => {
      const entry = byId.get(id);
      if (entry === undefined) return;
      leave(entry, undefined);
      byId.delete(id);
    },
    get: (id) => byId.get(id),
    size: () => byId.size,
    entries: () => byId.values(),
    page: ({ tenant, state, cli, labels = [], after, limit }) => {
      const keys = [
        ...(tenant === undefined ? [] : [`t\0${tenant}`]),
        ...(state === undefined ? [] : [`s\0${state}`]),
        ...(cli === undefined ? [] : [`c\0${cli}`]),
        ...labels.map(([key, value]) => `l\0${key}=${value}`),
      ];
      // Walk the shortest list that holds every Run the filter can match; check the rest on each.
      let list: readonly IndexEntry[] = all;
      for (const key of keys) {
        const candidates = lists.get(key) ?? [];
        if (candidates.length < list.length) list = candidates;
      }
      const found: IndexEntry[] = [];
      for (let at = (after === undefined ? list.length : lowerBound(list, after)) - 1; at >= 0 && found.length <= limit; at -= 1) {
        const entry = list[at] as IndexEntry;
        if (
          (tenant === undefined || entry.tenant === tenant) &&
          (state === undefined || entry.state === state) &&
          (cli === undefined || entry.cli === cli) &&
          labels.every(([key, value]) => entry.labels[key] === value)
        )
          found.push(entry);
      }
      return { entries: found.slice(0, limit), more: found.length > limit };
    },
    usage: (since, tenant) => {
      const sums = new Map<string, TenantUsage>();
      const into = (usage: TenantUsage) => {
        const sum = sums.get(usage.tenant) ?? { tenant: usage.tenant, totals: zeroTotals(), labels: {} };
        sums.set(usage.tenant, sum);
        addTotals(sum.totals, usage.totals);
        for (const [label, totals] of Object.entries(usage.labels)) addTotals((sum.labels[label] ??= zeroTotals()), totals);
      };
      const first = Math.floor(since / DAY_MS);
      for (const [number, day] of days) {
        if (number < first) continue;
        if (number === first && since > number * DAY_MS) {
          // The day `since` falls within: its Runs one by one, from `since` on.
          const partial = new Map<string, TenantUsage>();
          for (const entry of day.ended.values())
            if ((tenant === undefined || entry.tenant === tenant) && Date.parse(entry.endedAt as string) >= since) addToUsage(partial, entry);
          for (const usage of partial.values()) into(usage);
          continue;
        }
        const daySums = sumsOf(day);
        if (tenant === undefined) for (const usage of daySums.values()) into(usage);
        else {
          const usage = daySums.get(tenant);
          if (usage !== undefined) into(usage);
        }
      }
      return [...sums.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
    },
    live: () => [...live.values()].sort(compare),
    endedBefore: (cutoff) => {
      const ids: string[] = [];
      for (const [number, day] of days) {
        if (number * DAY_MS >= cutoff) continue;
        for (const entry of day.ended.values()) if (TERMINAL_STATES.has(entry.state) && Date.parse(entry.endedAt as string) < cutoff) ids.push(entry.id);
      }
      return ids;
    },
    sessionOwner: (session) => {
      let owner: IndexEntry | undefined;
      for (const id of sessions.get(session) ?? []) {
        const entry = byId.get(id);
        if (entry !== undefined && (owner === undefined || compare(entry, owner) < 0)) owner = entry;
      }
      return owner;
    },
    owing: () => [...owing],
    tenants: () => [...tenants.keys()].sort(),
  };
}
