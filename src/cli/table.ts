// The administration commands' tables: columns as wide as their widest cell, two spaces apart,
// times in UTC to the minute, "-" for nothing, and no cell able to act on a terminal.

import { oneLine } from "./progress.js";

/** A time as `2026-12-01 14:05Z`; "-" for none. */
export function when(iso: string | undefined): string {
  return iso === undefined ? "-" : `${iso.slice(0, 16).replace("T", " ")}Z`;
}

/** A value as a cell: one line, printable, "-" for nothing. */
export function cell(value: string | number | undefined): string {
  return value === undefined || value === "" ? "-" : oneLine(String(value));
}

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => [...(row[column] ?? "")].length)));
  const line = (row: readonly string[]) => `${row.map((text, column) => (column === row.length - 1 ? text : text.padEnd(widths[column] ?? 0))).join("  ")}\n`;
  return [header, ...rows].map(line).join("");
}
