// How the administration commands (keys, tenants, audit) read their flags: a time as a span from
// now (30d, 12h, 90m) or an ISO date and time, a tenant's name, a quota or `default`, a callback
// URL or `none`, a key's prefix. Each refusal names the flag, quotes the value and says what to write,
// except a key's: what looks like a whole key is never quoted, since it may be one.

import { InvalidArgumentError } from "commander";
import { UsageError } from "./options.js";

/** The tenant names the service takes (its TENANT_PATTERN): checked here so the refusal is in flag words. */
const TENANT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** A key as the service makes it, `ac_<prefix>_<secret>`, and its prefix alone (the service's KEY_PATTERN). */
const WHOLE_KEY = /^ac_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;
const PREFIX = /^[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const SPAN = /^(\d{1,6})([mhd])$/;
const SPAN_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest span either way: ten years. */
const MAX_SPAN_MS = 3650 * SPAN_MS.d;

/** A span (`30d`, `12h`, `90m`) in ms, or an ISO date and time as epoch ms; undefined when it is neither. */
function timeOf(raw: string, now: number, direction: 1 | -1): number | undefined {
  const span = SPAN.exec(raw);
  if (span !== null) {
    const ms = Number(span[1]) * SPAN_MS[span[2] as keyof typeof SPAN_MS];
    return ms >= 1 && ms <= MAX_SPAN_MS ? now + direction * ms : undefined;
  }
  if (!ISO_TIME.test(raw) || !onTheCalendar(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : at;
}

/** Whether an ISO time's date and clock exist: Date.parse rolls 2027-02-30 over into March. */
function onTheCalendar(raw: string): boolean {
  const [year, month, day, hour, minute] = raw.split(/[-T:]/).map(Number) as [number, number, number, number, number];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= days && hour <= 23 && minute <= 59;
}

/** --expires: when a key stops working, as an ISO time to come. */
export function expiryTime(now: () => number = Date.now): (raw: string) => string {
  return (raw) => {
    const at = timeOf(raw, now(), 1);
    if (at === undefined)
      throw new InvalidArgumentError(
        `--expires ${JSON.stringify(raw)} is not a time; write how long the key lasts (30d, 12h, 90m; at most 3650d) or when it ends (2027-01-31T00:00:00Z), or leave it out for a key that does not expire`,
      );
    if (at <= now()) throw new InvalidArgumentError(`--expires ${JSON.stringify(raw)} has passed; write a time to come, such as 30d or 2027-01-31T00:00:00Z`);
    return new Date(at).toISOString();
  };
}

/** --since: the audit log from this time on, as an ISO time past. */
export function sinceTime(now: () => number = Date.now): (raw: string) => string {
  return (raw) => {
    const at = timeOf(raw, now(), -1);
    if (at === undefined)
      throw new InvalidArgumentError(`--since ${JSON.stringify(raw)} is not a time; write how far back (1h, 2d, 90m) or from when (2026-12-01T00:00:00Z)`);
    if (at > now()) throw new InvalidArgumentError(`--since ${JSON.stringify(raw)} is still to come; write a time past, such as 1h or 2026-12-01T00:00:00Z`);
    return new Date(at).toISOString();
  };
}

/** --tenant, or a command's NAME: a tenant's name as the service takes it. */
export function tenantName(flag: string): (raw: string) => string {
  return (raw) => {
    if (!TENANT_NAME.test(raw))
      throw new InvalidArgumentError(
        `${flag} ${JSON.stringify(raw)} is not a tenant name; write 1 to 63 lower-case letters, digits, - or _, starting with a letter or digit`,
      );
    return raw;
  };
}

/**
 * A whole-number quota from 1 to `max`, or "default" (sent as null: back to the service's default).
 * Kept as the word here: commander stores an option whose parser gave null as "".
 */
export function quotaCount(flag: string, max: number, what: string): (raw: string) => number | "default" {
  return (raw) => {
    if (raw === "default") return raw;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`${flag} ${JSON.stringify(raw)} is not a whole number from 1 to ${max}; write ${what}, or default for the service's own`);
    return n;
  };
}

/** A spend quota in USD from 0, or "default". */
export function quotaDollars(flag: string): (raw: string) => number | "default" {
  return (raw) => {
    if (raw === "default") return raw;
    const n = Number(raw.replace(/^\$/, ""));
    if (raw.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1_000_000)
      throw new InvalidArgumentError(
        `${flag} ${JSON.stringify(raw)} is not an amount of USD from 0 to 1000000; write one such as 25, or default for the service's own`,
      );
    return n;
  };
}

/** --callback-url: where the tenant's webhooks go, or "none" (sent as null). */
export function callbackUrl(raw: string): string {
  if (raw === "none") return raw;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new InvalidArgumentError(
      `--callback-url ${JSON.stringify(raw)} is not an http or https URL; write one such as https://ci.example.com/agentcage, or none`,
    );
  return raw;
}

/**
 * A key's prefix, from the prefix itself or from the whole key (whose secret is then dropped, never
 * repeated). Checked in the action, not by commander, whose own refusal would quote the argument.
 */
export function keyPrefix(raw: string): string {
  if (PREFIX.test(raw)) return raw;
  const whole = WHOLE_KEY.exec(raw);
  if (whole !== null) return whole[1] as string;
  if (raw.startsWith("ac_"))
    throw new UsageError("the key given is not one (ac_, 12 hex digits, _, 43 characters); give its prefix, the 12 hex digits agentcage keys ls shows");
  throw new UsageError(`PREFIX ${JSON.stringify(raw)} is not a key's prefix; write the 12 hex digits agentcage keys ls shows, or the whole key`);
}
