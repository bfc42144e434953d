// Several engines behind one set: where each Run goes (placement) and what happens when an engine
// stops answering (drain). A Run goes to an engine that answers its ping and holds the Run's image,
// with a free slot; ties go to the one with the most free slots, then to the first named; an engine
// whose ping is late (slow) takes a Run only when every prompt one is full. An engine is drained only
// when it is shown gone (slow is not dead: docs/operations.md): ENGINE_DRAIN_AFTER_FAILED_PINGS pings in a row refused
// (nobody listens on its socket, TLS or ssh refuses) or broken before any answer. Drained, its Runs end
// `unavailable`, none is placed there, and it comes back (its listeners told, to sweep it) when it
// answers again, as does one a sweep passed by while it did not answer. A late ping is waited for,
// counted (`latePings`, onSlow) and never sent again beside itself; the Runs of a slow engine go on,
// and one slow from its first ping holds no Run back from the engines that answer.
// Invariant: a lease is held by exactly one Run, and its slot is given back exactly once; only a
// ping that shows the engine gone ends a Run.

import type { Engine } from "../../engine/index.js";
import { connectionMessage, engineShownGone } from "../../engine/index.js";
import { describeBound, patientTimer, type HitBound } from "../../liveness/index.js";
import {
  ENGINE_DRAIN_AFTER_FAILED_PINGS,
  ENGINE_HEALTH_INTERVAL_MS,
  ENGINE_PING_TIMEOUT_MS,
  ENGINE_SLOW_RECHECK_MAX_MS,
  DEFAULT_MAX_CONCURRENT_RUNS,
  MAX_CONCURRENT_RUNS,
} from "../limits.js";
import { describeValue, EarlyEnd, RunRequestError } from "../misuse.js";
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
  /** It answered its last ping, however late (false before the first). */
  readonly answers: boolean;
  /** Its ping outlasted its bound and is still waited for: its Runs go on, and a new Run goes to it only when every prompt engine is full. */
  readonly slow: boolean;
  /** No Run goes to it, and its Runs were ended: its pings showed it gone (refused, or broken) in a row. */
  readonly drained: boolean;
  /** What its last failed ping said, or that it is late, while it does not answer. */
  readonly why?: string;
  /** Pings that outlasted their bound since the set was made (each late reading, counted once). */
  readonly latePings: number;
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
  /** Called with an engine that answers again after it was drained, or first answers after the first round of pings (the start-up sweep passed it by); returns the unsubscribe. */
  readonly onReturn: (listener: (name: string, engine: Engine) => void) => () => void;
  /** Called with an engine as it is drained, and what its last ping said; returns the unsubscribe. */
  readonly onDrain: (listener: (name: string, why: string) => void) => () => void;
  /** Called each time an engine's ping outlasts its bound (it is slow, not gone): its name and the bound as hit; returns the unsubscribe. */
  readonly onSlow: (listener: (name: string, hit: HitBound) => void) => () => void;
  /** Stops pinging; leases held stay valid. */
  readonly close: () => void;
};

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type Member = {
  readonly name: string;
  readonly engine: Engine;
  readonly slots: number;
  answers: boolean;
  /** It has had a reading (an answer, a failure, or a late one). */
  read: boolean;
  /** answering() left it out (it did not answer then): its first answer after is told as a return, to sweep it. */
  passedOver: boolean;
  slow: boolean;
  drained: boolean;
  /** Pings in a row that showed it gone. */
  refusals: number;
  /** Late readings in a row, for the backoff of the next one. */
  lateInRow: number;
  latePings: number;
  why?: string;
  /** The ping under way (`answered` when the engine said anything, `read` once that was taken in): a late one is waited for, not sent again. */
  pinging?: { readonly answered: Promise<void>; readonly read: Promise<void> };
  timer?: NodeJS.Timeout;
  readonly leases: Set<AbortController>;
  /** Images known held (true), not held (false) or asked of without an answer yet (undefined), refreshed at each answered ping. */
  readonly images: Map<string, boolean | undefined>;
};

/** What placement may expect of an engine for one image: a Run now, a Run once every prompt one is full, one once it says more, or none. */
type Standing = "prompt" | "slow" | "unsure" | "none";

/** Throws a RunRequestError naming the engine option at the first entry that cannot mean anything. */
export function createEngineSet(engines: readonly NamedEngine[], parameter = "engines"): EngineSet {
  const members = checkEngines(engines, parameter);
  const returnListeners = new Set<(name: string, engine: Engine) => void>();
  const drainListeners = new Set<(name: string, why: string) => void>();
  const slowListeners = new Set<(name: string, hit: HitBound) => void>();
  const wakers = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...wakers]) w();
  };
  let closed = false;

  const answered = async (member: Member): Promise<void> => {
    member.refusals = 0;
    member.lateInRow = 0;
    delete member.why;
    // Back after a drain, or answering after a sweep passed it by.
    const back = member.drained || member.passedOver;
    member.passedOver = false;
    member.read = true;
    member.answers = true;
    member.slow = false;
    member.drained = false;
    if (back) for (const listener of returnListeners) listener(member.name, member.engine);
    for (const image of member.images.keys()) {
      const held = await holds(member, image);
      if (held !== undefined) member.images.set(image, held);
    }
    wake();
  };
  const failed = (member: Member, error: unknown): void => {
    member.read = true;
    member.answers = false;
    member.slow = false;
    member.lateInRow = 0;
    member.why = connectionMessage(error);
    // The engine's own refusal of a ping (an HTTP error) is an engine that lives.
    member.refusals = engineShownGone(error) === undefined ? 0 : member.refusals + 1;
    if (!member.drained && member.refusals >= ENGINE_DRAIN_AFTER_FAILED_PINGS) drain(member);
    wake();
  };
  const late = (member: Member, hit: HitBound): void => {
    member.read = true;
    member.answers = false;
    member.slow = true;
    member.lateInRow += 1;
    member.latePings += 1;
    member.why = `its ping is late: no answer within ${describeBound(hit)}; its Runs go on`;
    for (const listener of slowListeners) listener(member.name, hit);
    wake();
  };
  /** One reading: the ping's answer, or that it is late (the ping itself is still waited for, and tells when it comes). */
  const ping = (member: Member): Promise<void> => {
    if (member.pinging === undefined) {
      const sent = member.engine.ping();
      member.pinging = {
        answered: sent.then(
          () => undefined,
          () => undefined,
        ),
        read: sent
          .then(
            () => answered(member),
            (error: unknown) => failed(member, error),
          )
          .finally(() => {
            delete member.pinging;
          }),
      };
    }
    const { answered: came, read } = member.pinging;
    return new Promise<void>((resolve) => {
      const bound = patientTimer(ENGINE_PING_TIMEOUT_MS, (hit) => {
        late(member, hit);
        resolve();
      });
      void came.then(() => bound.cancel());
      void read.then(resolve);
    });
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
  /** The next reading a while after this one: the interval, or, while late, a backoff doubling up to ENGINE_SLOW_RECHECK_MAX_MS. */
  const watch = (member: Member): void => {
    if (closed) return;
    const waitMs = member.slow ? Math.min(ENGINE_HEALTH_INTERVAL_MS * 2 ** (member.lateInRow - 1), ENGINE_SLOW_RECHECK_MAX_MS) : ENGINE_HEALTH_INTERVAL_MS;
    member.timer = setTimeout(() => void ping(member).finally(() => watch(member)), waitMs);
    // The pings never keep a process alive on their own.
    member.timer.unref();
  };
  const readAll = Promise.all(members.map((member) => ping(member).finally(() => watch(member)))).then(wake);
  /**
   * Every engine's first reading, or ENGINE_PING_TIMEOUT_MS as on an idle machine, whichever is
   * first: an engine slow to answer its first ping (its reading waits out a bound stretched by the
   * load) holds no Run back from the engines that answered; it is placed on once it answers.
   */
  const firstRound = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ENGINE_PING_TIMEOUT_MS);
      timer.unref();
      void readAll.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });

  const standing = (member: Member, image: string): Standing => {
    const held = member.images.get(image);
    if (member.drained || held === false) return "none";
    if (held === true && member.answers) return "prompt";
    if (held === true && member.slow) return "slow";
    // Not read yet, late to say whether it holds the image, or refused once and not yet shown gone: the next reading says.
    if (!member.read || member.answers || member.slow || member.refusals > 0) return "unsure";
    return "none";
  };
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
  /** Asks the engines that answer whether they hold `image` the first time it is asked of; the others are asked at their next answer. */
  const learnImage = async (image: string): Promise<void> => {
    await Promise.all(
      members
        .filter((m) => !m.images.has(image))
        .map(async (m) => {
          m.images.set(image, undefined);
          if (m.answers) m.images.set(image, await holds(m, image));
        }),
    );
  };
  /** The engine with the most free slots among `some` (the first named on a tie), if one has a free slot. */
  const mostFree = (some: readonly Member[]): Member | undefined =>
    some
      .filter((m) => m.leases.size < m.slots)
      .reduce<Member | undefined>((a, m) => (a === undefined || m.slots - m.leases.size > a.slots - a.leases.size ? m : a), undefined);

  return {
    names: members.map((m) => m.name),
    acquire: async (image, signal) => {
      await firstRound();
      await learnImage(image);
      while (signal?.aborted !== true) {
        const stand = members.map((m) => standing(m, image));
        if (stand.every((one) => one === "none")) return { refused: refusalOf(image) };
        // A prompt engine first; a slow one only when every prompt one is full.
        const best = mostFree(members.filter((_, i) => stand[i] === "prompt")) ?? mostFree(members.filter((_, i) => stand[i] === "slow"));
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
        slow: m.slow,
        drained: m.drained,
        ...(m.why === undefined ? {} : { why: m.why }),
        latePings: m.latePings,
        running: m.leases.size,
        slots: m.slots,
      })),
    holdsImage: async (image) => {
      await firstRound();
      // A slow engine is not asked again (its answer would be late too): what it last said stands.
      const held = await Promise.all(
        members.map(async (m) => [m.name, m.answers ? (await holds(m, image)) === true : m.slow && !m.drained && m.images.get(image) === true] as const),
      );
      return new Map(held);
    },
    engines: () => members.map((m) => ({ name: m.name, engine: m.engine })),
    answering: async () => {
      await firstRound();
      for (const m of members) if (!m.answers) m.passedOver = true;
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
    onSlow: (listener) => {
      slowListeners.add(listener);
      return () => slowListeners.delete(listener);
    },
    close: () => {
      closed = true;
      for (const member of members) clearTimeout(member.timer);
    },
  };
}

/** Whether the engine holds the image; undefined when it did not say within a ping's bound (it is asked again at its next answer). */
function holds(member: Member, image: string): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    const bound = patientTimer(ENGINE_PING_TIMEOUT_MS, () => resolve(undefined));
    member.engine.hasImage(image).then(
      (held) => {
        bound.cancel();
        resolve(held);
      },
      () => {
        bound.cancel();
        resolve(false);
      },
    );
  });
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
    return {
      name: entry.name,
      engine: entry.engine,
      slots,
      answers: false,
      read: false,
      passedOver: false,
      slow: false,
      drained: false,
      refusals: 0,
      lateInRow: 0,
      latePings: 0,
      leases: new Set(),
      images: new Map(),
    };
  });
}
