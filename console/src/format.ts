// How numbers read in the console: durations, tokens, dollars, times. One place, so the list, a
// Run's page and the service's page say the same thing the same way.

export function duration(ms: number | undefined): string {
  if (ms === undefined) return "";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function tokens(input: number | undefined, output: number | undefined): string {
  if (input === undefined && output === undefined) return "";
  return `${(input ?? 0).toLocaleString("en")} in / ${(output ?? 0).toLocaleString("en")} out`;
}

export function dollars(usd: number | undefined): string {
  if (usd === undefined) return "";
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The zone every time of the console is read in (the browser's own), for the pages to say once. */
export const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A time in the browser's own zone as 2026-12-02 15:01:47: one reading in every locale. */
export function when(iso: string | undefined): string {
  if (iso === undefined) return "";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/** How long a Run took, or has taken so far. */
export function elapsed(createdAt: string, endedAt: string | undefined, now: number): number {
  return (endedAt === undefined ? now : Date.parse(endedAt)) - Date.parse(createdAt);
}
