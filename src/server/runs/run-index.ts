// A store's index of its Runs: one small entry per Run kept (what the list's filters, the usage sums,
// a start and the session check need, never its request, events or Outcome), in memory, answering a
// page in the cost of the page and a usage query in the cost of its day buckets, never of every Run
// kept (ended Runs summed per UTC hour and day, so a query from within a day sums its whole hours and
// walks only the Runs of the one hour it starts in). Both stores keep one; the file store also writes it down (store-files-index.ts) so that a
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
  /** Every entry, sorted by (createdAt, id): the index's own list, read only. */
  readonly ordered: () => readonly IndexEntry[];
  /** Enters `entries` into an empty index at once: sorted by (createdAt, id), each id once (as the index files hold them). */
  readonly load: (entries: Iterable<IndexEntry>) => void;
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

/** The ended Runs of one UTC day or hour, and their sums per tenant (undefined until asked, and once a Run left it: summed again when asked). */
type Bucket = { readonly ended: Map<string, IndexEntry>; sums: Map<string, TenantUsage> | undefined };

const HOUR_MS = 3_600_000;

/**
 * One UTC day: how many of its hours hold ended Runs, its sums, and the sums of its whole hours from
 * an hour on to its end (by the hour's number, made when a query from within the day first asks and
 * kept, each Run ending later in the day added to them), so a query from within a day adds one map.
 */
type Day = { hours: number; sums: Map<string, TenantUsage> | undefined; from: Map<number, Map<string, TenantUsage>> | undefined };

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
  // Each UTC hour's ended Runs (and their sums), and each UTC day's sums over its hours.
  const hours = new Map<number, Bucket>();
  const days = new Map<number, Day>();
  // The sums of every day from a day on (by the day's number): made when a query from that midnight
  // first asks and kept, each Run that ends later added, all dropped when a summed Run changes or goes.
  const daysFrom = new Map<number, Map<string, TenantUsage>>();
  // The Runs that ended with a session: its one Run's id, or its Runs' ids when several did. Made at
  // the first question (a resume is rare; a start need not hash every session kept), then kept.
  let sessions: Map<string, string | string[]> | undefined;
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
  /** The entry as the index keeps it: its strings and labels the index's own copies. */
  const kept = (given: IndexEntry, labels: Readonly<Record<string, string>>): IndexEntry => {
    const { owes, ...rest } = given;
    const tenant = intern(given.tenant);
    const cli = given.cli === undefined ? undefined : intern(given.cli);
    const reason = given.reason === undefined ? undefined : intern(given.reason);
    if (tenant === given.tenant && labels === given.labels && cli === given.cli && reason === given.reason && (owes === undefined || owes.length > 0))
      return given;
    return {
      ...rest,
      ...(owes === undefined || owes.length === 0 ? {} : { owes }),
      tenant,
      labels,
      ...(cli === undefined ? {} : { cli }),
      ...(reason === undefined ? {} : { reason }),
    };
  };

  const insert = (list: IndexEntry[], entry: IndexEntry) => {
    const at = list.length === 0 || compare(list[list.length - 1] as IndexEntry, entry) < 0 ? list.length : lowerBound(list, entry);
    list.splice(at, 0, entry);
  };
  const take = (list: IndexEntry[], entry: IndexEntry) => {
    const at = lowerBound(list, entry);
    if (list[at]?.id === entry.id) list.splice(at, 1);
  };

  /** Where an ended entry is summed (its hour, the epoch ms it ended), or undefined when it has not ended (or its end is not a time). */
  const endOf = (entry: IndexEntry): number | undefined => {
    if (entry.endedAt === undefined) return undefined;
    const ms = Date.parse(entry.endedAt);
    return Number.isFinite(ms) ? ms : undefined;
  };
  /** Enters an ended entry in its hour (and its day); `summed`: it is in their sums already (it was there before and counts the same). */
  const placeEnded = (entry: IndexEntry, ms: number, summed: boolean) => {
    const hour = Math.floor(ms / HOUR_MS);
    const known = hours.get(hour);
    const bucket = known ?? { ended: new Map<string, IndexEntry>(), sums: undefined };
    if (known === undefined) hours.set(hour, bucket);
    bucket.ended.set(entry.id, entry);
    const number = Math.floor(ms / DAY_MS);
    const day = days.get(number) ?? { hours: 0, sums: undefined, from: undefined };
    if (known === undefined) day.hours += 1;
    days.set(number, day);
    if (summed && known !== undefined) return;
    if (bucket.sums !== undefined) addToUsage(bucket.sums, entry);
    if (day.sums !== undefined) addToUsage(day.sums, entry);
    for (const [from, sums] of day.from ?? []) if (from <= hour) addToUsage(sums, entry);
    for (const [from, sums] of daysFrom) if (from <= number) addToUsage(sums, entry);
  };
  /** Takes an ended entry out of its hour; its sums (and its day's) are dropped unless `next` counts the same. */
  const unplaceEnded = (entry: IndexEntry, ms: number, next: IndexEntry | undefined) => {
    const hour = Math.floor(ms / HOUR_MS);
    const bucket = hours.get(hour);
    if (bucket === undefined) return;
    bucket.ended.delete(entry.id);
    const number = Math.floor(ms / DAY_MS);
    const day = days.get(number);
    if (next === undefined || !sameUsage(entry, next)) {
      bucket.sums = undefined;
      daysFrom.clear();
      if (day !== undefined) {
        day.sums = undefined;
        day.from = undefined;
      }
    }
    if (bucket.ended.size > 0 || day === undefined) return;
    // Its hour goes with it: the day's sums are made again from the hours left.
    hours.delete(hour);
    day.sums = undefined;
    day.from = undefined;
    daysFrom.clear();
    if (--day.hours === 0) days.delete(number);
  };

  const addSession = (session: string, id: string) => {
    if (sessions === undefined) return;
    const ids = sessions.get(session);
    if (ids === undefined) sessions.set(session, id);
    else if (typeof ids === "string") sessions.set(session, [ids, id]);
    else ids.push(id);
  };
  const removeSession = (session: string, id: string) => {
    if (sessions === undefined) return;
    const ids = sessions.get(session);
    if (ids === id) sessions.delete(session);
    else if (Array.isArray(ids)) {
      const rest = ids.filter((one) => one !== id);
      if (rest.length === 1) sessions.set(session, rest[0] as string);
      else if (rest.length === 0) sessions.delete(session);
      else sessions.set(session, rest);
    }
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
    const ms = endOf(entry);
    if (ms !== undefined) unplaceEnded(entry, ms, next);
    if (entry.session !== undefined) removeSession(entry.session, entry.id);
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
    enterRest(entry, before);
  };
  /** What an entry is in beside the ordered lists. */
  const enterRest = (entry: IndexEntry, before: IndexEntry | undefined) => {
    if (!TERMINAL_STATES.has(entry.state)) live.set(entry.id, entry);
    const ms = endOf(entry);
    if (ms !== undefined) placeEnded(entry, ms, before !== undefined && sameUsage(before, entry));
    if (entry.session !== undefined) addSession(entry.session, entry.id);
    if (entry.owes !== undefined && entry.owes.length > 0) owing.add(entry.id);
    tenants.set(entry.tenant, (tenants.get(entry.tenant) ?? 0) + 1);
  };

  const sumsOf = (bucket: Bucket): Map<string, TenantUsage> => {
    if (bucket.sums !== undefined) return bucket.sums;
    const sums = new Map<string, TenantUsage>();
    for (const entry of bucket.ended.values()) addToUsage(sums, entry);
    bucket.sums = sums;
    return sums;
  };
  const daySumsOf = (number: number): Map<string, TenantUsage> => {
    const day = days.get(number);
    if (day === undefined) return new Map();
    if (day.sums !== undefined) return day.sums;
    const sums = new Map<string, TenantUsage>();
    for (let hour = number * 24; hour < (number + 1) * 24; hour += 1) {
      const bucket = hours.get(hour);
      if (bucket !== undefined) for (const usage of sumsOf(bucket).values()) into(sums, usage);
    }
    day.sums = sums;
    return sums;
  };
  /** The sums of every day from day `from` (a day's number) on. */
  const sumsFromDay = (from: number): Map<string, TenantUsage> => {
    const known = daysFrom.get(from);
    if (known !== undefined) return known;
    const sums = new Map<string, TenantUsage>();
    for (const number of days.keys()) if (number >= from) for (const usage of daySumsOf(number).values()) into(sums, usage);
    daysFrom.set(from, sums);
    return sums;
  };
  /** The sums of the whole hours of a day from hour `from` (an hour's number) to the day's end. */
  const sumsFrom = (number: number, from: number): Map<string, TenantUsage> => {
    const day = days.get(number);
    if (day === undefined) return new Map();
    const known = day.from?.get(from);
    if (known !== undefined) return known;
    const sums = new Map<string, TenantUsage>();
    for (let hour = from; hour < (number + 1) * 24; hour += 1) {
      const bucket = hours.get(hour);
      if (bucket !== undefined) for (const usage of sumsOf(bucket).values()) into(sums, usage);
    }
    (day.from ??= new Map()).set(from, sums);
    return sums;
  };

  return {
    upsert: (given) => {
      const before = byId.get(given.id);
      const entry = kept(given, internLabels(given.labels));
      if (before !== undefined) leave(before, entry);
      enter(entry, before);
    },
    load: (entries) => {
      if (byId.size > 0) throw new Error("the index is loaded only while it is empty");
      // The lists of each tenant, state, CLI and label set, looked up once per value, not once per entry.
      const tenantLists = new Map<string, IndexEntry[]>();
      const stateLists = new Map<string, IndexEntry[]>();
      const cliLists = new Map<string, IndexEntry[]>();
      const listOf = (key: string) => {
        let list = lists.get(key);
        if (list === undefined) lists.set(key, (list = []));
        return list;
      };
      const labelLists = new Map<Readonly<Record<string, string>>, { labels: Readonly<Record<string, string>>; lists: IndexEntry[][] }>();
      let last: IndexEntry | undefined;
      for (const given of entries) {
        let labels = labelLists.get(given.labels);
        if (labels === undefined) {
          const own = internLabels(given.labels);
          labels = { labels: own, lists: Object.entries(own).map(([key, value]) => listOf(`l\0${key}=${value}`)) };
          labelLists.set(given.labels, labels);
        }
        const entry = kept(given, labels.labels);
        if (byId.has(entry.id) || (last !== undefined && compare(last, entry) >= 0))
          throw new Error(`the index was given ${entry.id} out of order; load takes entries sorted by createdAt and id, each once`);
        last = entry;
        byId.set(entry.id, entry);
        all.push(entry);
        let byTenant = tenantLists.get(entry.tenant);
        if (byTenant === undefined) tenantLists.set(entry.tenant, (byTenant = listOf(`t\0${entry.tenant}`)));
        byTenant.push(entry);
        let byState = stateLists.get(entry.state);
        if (byState === undefined) stateLists.set(entry.state, (byState = listOf(`s\0${entry.state}`)));
        byState.push(entry);
        if (entry.cli !== undefined) {
          let byCli = cliLists.get(entry.cli);
          if (byCli === undefined) cliLists.set(entry.cli, (byCli = listOf(`c\0${entry.cli}`)));
          byCli.push(entry);
        }
        for (const list of labels.lists) list.push(entry);
        enterRest(entry, undefined);
      }
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
    ordered: () => all,
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
      const add = (from: Map<string, TenantUsage>) => {
        if (tenant === undefined) for (const usage of from.values()) into(sums, usage);
        else {
          const usage = from.get(tenant);
          if (usage !== undefined) into(sums, usage);
        }
      };
      const first = Math.floor(since / DAY_MS);
      add(sumsFromDay(since <= first * DAY_MS ? first : first + 1));
      if (since > first * DAY_MS) {
        // Within the day `since` falls in: its whole hours from their sums, the hour it falls within Run by Run.
        const hour = Math.floor(since / HOUR_MS);
        const whole = since <= hour * HOUR_MS;
        add(sumsFrom(first, whole ? hour : hour + 1));
        const bucket = whole ? undefined : hours.get(hour);
        if (bucket !== undefined) {
          const partial = new Map<string, TenantUsage>();
          for (const entry of bucket.ended.values())
            if ((tenant === undefined || entry.tenant === tenant) && Date.parse(entry.endedAt as string) >= since) addToUsage(partial, entry);
          add(partial);
        }
      }
      return [...sums.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
    },
    live: () => [...live.values()].sort(compare),
    endedBefore: (cutoff) => {
      const ids: string[] = [];
      for (const [number, bucket] of hours) {
        if (number * HOUR_MS >= cutoff) continue;
        for (const entry of bucket.ended.values()) if (TERMINAL_STATES.has(entry.state) && Date.parse(entry.endedAt as string) < cutoff) ids.push(entry.id);
      }
      return ids;
    },
    sessionOwner: (session) => {
      if (sessions === undefined) {
        sessions = new Map();
        for (const entry of all) if (entry.session !== undefined) addSession(entry.session, entry.id);
      }
      const ids = sessions.get(session);
      let owner: IndexEntry | undefined;
      for (const id of ids === undefined ? [] : typeof ids === "string" ? [ids] : ids) {
        const entry = byId.get(id);
        if (entry !== undefined && (owner === undefined || compare(entry, owner) < 0)) owner = entry;
      }
      return owner;
    },
    owing: () => [...owing],
    tenants: () => [...tenants.keys()].sort(),
  };
}

/** Adds one tenant's usage to `sums` (changed in place). */
function into(sums: Map<string, TenantUsage>, usage: TenantUsage): void {
  const sum = sums.get(usage.tenant) ?? { tenant: usage.tenant, totals: zeroTotals(), labels: {} };
  sums.set(usage.tenant, sum);
  addTotals(sum.totals, usage.totals);
  for (const [label, totals] of Object.entries(usage.labels)) addTotals((sum.labels[label] ??= zeroTotals()), totals);
}
