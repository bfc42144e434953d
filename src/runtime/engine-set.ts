// Several engines behind one set: where each Run goes (placement) and what happens when an engine
// stops answering (drain). A Run goes to an engine that answers its ping and holds the Run's image,
// with a free slot; ties go to the one with the most free slots, then to the first named. An engine
// that fails ENGINE_DRAIN_AFTER_FAILED_PINGS pings in a row is drained: its Runs end `unavailable`,
// none is placed there, and it comes back (its listeners told, to sweep it) when it answers again.
// Invariant: a lease is held by exactly one Run, and its slot is given back exactly once.

import type { Engine } from "../engine/index.js";
import { connectionMessage } from "../engine/index.js";
import {
  ENGINE_DRAIN_AFTER_FAILED_PINGS,
  ENGINE_HEALTH_INTERVAL_MS,
  ENGINE_PING_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENT_RUNS,
  MAX_CONCURRENT_RUNS,
} from "./limits.js";
import { describeValue, EarlyEnd, RunRequestError } from "./misuse.js";
import { bounded } from "./stop.js";
import { givenUpWhen } from "./engine-given-up.js";

/** One engine of a set, as the caller names it. */
export type NamedEngine = {
  /** How the engine is called in Outcomes, logs, /readyz and metrics: letters, digits, `.`, `_`, `-`. */
  readonly name: string;
  readonly engine: Engine;
  /** Runs on it at once, over every runtime that shares the set; default DEFAULT_MAX_CONCURRENT_RUNS. */
  readonly maxConcurrentRuns?: number;
};

/** One engine as the set sees it now. */
export type EngineStatus = {
  readonly name: string;
  /** It answered its last ping (false before the first). */
  readonly answers: boolean;
  /** No Run goes to it, and its Runs were ended: it failed its pings in a row. */
  readonly drained: boolean;
  /** What its last failed ping said, while it does not answer. */
  readonly why?: string;
  readonly running: number;
  readonly slots: number;
};

/** A Run's hold on one slot of one engine. */
export type EngineLease = {
  readonly name: string;
  /** The engine, whose every call fails at once after the drain (engine-given-up.ts). */
  readonly engine: Engine;
  /** Aborted, with an EarlyEnd("unavailable"), when the engine is drained. */
  readonly signal: AbortSignal;
  /** Gives the slot back; later calls do nothing. */
  readonly release: () => void;
};

export type EngineSet = {
  readonly names: readonly string[];
  /**
   * A slot on the engine this Run goes to, waiting while every usable engine is full. Resolves with
   * `{ refused }` at once when no engine can take a Run of `image` now (none answers, or none that
   * answers holds it), saying why of each; undefined when `signal` aborts first.
   */
  readonly acquire: (image: string, signal?: AbortSignal) => Promise<EngineLease | { readonly refused: string } | undefined>;
  readonly status: () => readonly EngineStatus[];
  /** Whether each engine that answers holds `image` (asked now, not cached). */
  readonly holdsImage: (image: string) => Promise<ReadonlyMap<string, boolean>>;
  readonly engines: () => ReadonlyArray<{ readonly name: string; readonly engine: Engine }>;
  /** The engines that answered their last ping, once the first round of pings is done. */
  readonly answering: () => Promise<ReadonlyArray<{ readonly name: string; readonly engine: Engine }>>;
  /** Called with an engine that answers again after it was drained; returns the unsubscribe. */
  readonly onReturn: (listener: (name: string, engine: Engine) => void) => () => void;
  /** Called with an engine as it is drained, and what its last ping said; returns the unsubscribe. */
  readonly onDrain: (listener: (name: string, why: string) => void) => () => void;
  /** Stops pinging; leases held stay valid. */
  readonly close: () => void;
};

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type Member = {
  readonly name: string;
  readonly engine: Engine;
  readonly slots: number;
  answers: boolean;
  drained: boolean;
  failures: number;
  why?: string;
  readonly leases: Set<AbortController>;
  /** Images known held (true) or not (false), refreshed each round for images asked of. */
  readonly images: Map<string, boolean>;
};

/** Throws a RunRequestError naming the engine option at the first entry that cannot mean anything. */
export function createEngineSet(engines: readonly NamedEngine[], parameter = "engines"): EngineSet {
  const members = checkEngines(engines, parameter);
  const returnListeners = new Set<(name: string, engine: Engine) => void>();
  const drainListeners = new Set<(name: string, why: string) => void>();
  const wakers = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...wakers]) w();
  };
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const probe = async (member: Member): Promise<void> => {
    try {
      await bounded(member.engine.ping(), ENGINE_PING_TIMEOUT_MS, "its ping");
      for (const image of member.images.keys()) member.images.set(image, await holds(member, image));
      member.failures = 0;
      delete member.why;
      const back = member.drained;
      member.answers = true;
      member.drained = false;
      if (back) for (const listener of returnListeners) listener(member.name, member.engine);
    } catch (error) {
      member.failures += 1;
      member.answers = false;
      member.why = connectionMessage(error);
      if (!member.drained && member.failures >= ENGINE_DRAIN_AFTER_FAILED_PINGS) drain(member);
    }
  };
  const drain = (member: Member): void => {
    member.drained = true;
    const reason = new EarlyEnd(
      "unavailable",
      `the engine ${JSON.stringify(member.name)} stopped answering (${member.why ?? "no answer"}): the Run on it was ended, and no new Run goes there until it answers again`,
    );
    for (const lease of member.leases) lease.abort(reason);
    for (const listener of drainListeners) listener(member.name, member.why ?? "no answer");
  };
  const round = async (): Promise<void> => {
    await Promise.all(members.map(probe));
    wake();
  };
  const schedule = (): void => {
    if (closed) return;
    timer = setTimeout(() => void round().finally(schedule), ENGINE_HEALTH_INTERVAL_MS);
    // The pings never keep a process alive on their own.
    timer.unref();
  };
  const firstRound = round().finally(schedule);

  const usable = (member: Member, image: string): boolean => member.answers && !member.drained && member.images.get(image) === true;
  const refusalOf = (image: string): string =>
    `no engine can take the Run now: ${members
      .map((m) =>
        !m.answers || m.drained
          ? `${JSON.stringify(m.name)} does not answer (${m.why ?? "not yet asked"})`
          : `${JSON.stringify(m.name)} does not hold the image ${JSON.stringify(image)} (load it there: docker save ${image} | docker -H <engine> load)`,
      )
      .join("; ")}`;
  const leaseOn = (member: Member): EngineLease => {
    const controller = new AbortController();
    member.leases.add(controller);
    let released = false;
    return {
      name: member.name,
      engine: givenUpWhen(member.engine, controller.signal, member.name),
      signal: controller.signal,
      release: () => {
        if (released) return;
        released = true;
        member.leases.delete(controller);
        wake();
      },
    };
  };
  const learnImage = async (image: string): Promise<void> => {
    await Promise.all(members.filter((m) => m.answers && !m.images.has(image)).map(async (m) => m.images.set(image, await holds(m, image))));
  };

  return {
    names: members.map((m) => m.name),
    acquire: async (image, signal) => {
      await firstRound;
      await learnImage(image);
      while (signal?.aborted !== true) {
        const candidates = members.filter((m) => usable(m, image));
        if (candidates.length === 0) return { refused: refusalOf(image) };
        const free = candidates.filter((m) => m.leases.size < m.slots);
        // The most free slots wins; on a tie, the first named (filter keeps their order).
        const best = free.reduce<Member | undefined>((a, m) => (a === undefined || m.slots - m.leases.size > a.slots - a.leases.size ? m : a), undefined);
        if (best !== undefined) return leaseOn(best);
        await new Promise<void>((resolve) => {
          const done = (): void => {
            wakers.delete(done);
            signal?.removeEventListener("abort", done);
            resolve();
          };
          wakers.add(done);
          signal?.addEventListener("abort", done, { once: true });
        });
      }
      return undefined;
    },
    status: () =>
      members.map((m) => ({
        name: m.name,
        answers: m.answers,
        drained: m.drained,
        ...(m.why === undefined ? {} : { why: m.why }),
        running: m.leases.size,
        slots: m.slots,
      })),
    holdsImage: async (image) => {
      await firstRound;
      const held = await Promise.all(members.map(async (m) => [m.name, m.answers && (await holds(m, image))] as const));
      return new Map(held);
    },
    engines: () => members.map((m) => ({ name: m.name, engine: m.engine })),
    answering: async () => {
      await firstRound;
      return members.filter((m) => m.answers).map((m) => ({ name: m.name, engine: m.engine }));
    },
    onReturn: (listener) => {
      returnListeners.add(listener);
      return () => returnListeners.delete(listener);
    },
    onDrain: (listener) => {
      drainListeners.add(listener);
      return () => drainListeners.delete(listener);
    },
    close: () => {
      closed = true;
      clearTimeout(timer);
    },
  };
}

/** Whether the engine holds the image, bounded like a ping: one that does not say in time does not. */
function holds(member: Member, image: string): Promise<boolean> {
  return bounded(member.engine.hasImage(image), ENGINE_PING_TIMEOUT_MS, "its image check").catch(() => false);
}

function checkEngines(engines: readonly NamedEngine[], parameter: string): Member[] {
  if (!Array.isArray(engines) || engines.length === 0) {
    throw new RunRequestError(`${parameter} ${describeValue(engines)} is not a list of engines; pass [{ name, engine }] with one entry at the least`);
  }
  const seen = new Set<string>();
  return engines.map((entry, i) => {
    const where = `${parameter}[${i}]`;
    if (typeof entry !== "object" || entry === null || typeof entry.engine?.create !== "function") {
      throw new RunRequestError(`${where} ${describeValue(entry)} is not { name, engine }; pass the engine as createDockerEngine(...) or engineAt(...)`);
    }
    if (typeof entry.name !== "string" || !NAME_PATTERN.test(entry.name)) {
      throw new RunRequestError(`${where}.name ${describeValue(entry.name)} is not a usable name; write letters, digits, ".", "_" or "-", such as "engine-b"`);
    }
    if (seen.has(entry.name))
      throw new RunRequestError(`${where}.name ${JSON.stringify(entry.name)} is taken by an earlier engine; give each engine its own name`);
    seen.add(entry.name);
    const slots = entry.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS;
    if (!Number.isInteger(slots) || slots < 1 || slots > MAX_CONCURRENT_RUNS) {
      throw new RunRequestError(`${where}.maxConcurrentRuns ${describeValue(slots)} is out of range; write a whole number from 1 to ${MAX_CONCURRENT_RUNS}`);
    }
    return { name: entry.name, engine: entry.engine, slots, answers: false, drained: false, failures: 0, leases: new Set(), images: new Map() };
  });
}
