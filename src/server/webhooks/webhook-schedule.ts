// When a webhook that was not delivered is tried again: at once, then after growing waits (5 s,
// 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, then every 8 h), each spread by a random
// fifth either way so receivers that failed together are not all tried together again; never
// after a day has passed since the event. A receiver that is down for a day has missed it.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export type RetrySchedule = {
  /** The wait after each failed attempt, the first's first; past the end, the last again. */
  readonly delaysMs: readonly number[];
  /** No attempt starts later than this after the event. */
  readonly boundMs: number;
  /** Each wait is spread by up to this fraction either way (0.2: 80 % to 120 %). */
  readonly jitter: number;
};

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  delaysMs: [5 * SECOND, 30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR],
  boundMs: 24 * HOUR,
  jitter: 0.2,
};

/**
 * The wait before the next attempt, after `attemptsMade` failed ones, `elapsedMs` after the event;
 * undefined when that attempt would start past the bound: no more attempts.
 */
export function nextAttemptDelay(schedule: RetrySchedule, attemptsMade: number, elapsedMs: number, random: () => number = Math.random): number | undefined {
  const { delaysMs } = schedule;
  const base = delaysMs[Math.min(Math.max(attemptsMade - 1, 0), delaysMs.length - 1)];
  if (base === undefined) return undefined;
  const delay = Math.max(0, Math.round(base * (1 + schedule.jitter * (2 * random() - 1))));
  return elapsedMs + delay > schedule.boundMs ? undefined : delay;
}
