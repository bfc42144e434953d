// The one way a value becomes the TOML text after the `=` of a codex `-c key=value` word: smol-toml
// writes it, on one line, and parsing that text as a TOML value gives back exactly the value.

import { stringify } from "smol-toml";

/** What a `-c` value of ours can be: a string, a number, a boolean, or arrays and tables of them. */
export type TomlValue = string | number | boolean | readonly TomlValue[] | { readonly [key: string]: TomlValue };

// smol-toml writes documents, not lone values; an array's items are always written inline on one
// line (a table as `{ k = v }`, never as a `[section]`), so the value is the item of `v = [ [ X ] ]`.
const WRAP_START = "v = [ [ ";
const WRAP_END = " ] ]\n";

/**
 * The TOML text of `value`, for codex's `-c key=<text>`. Codex reads that text as the value of
 * `_x_ = <text>` and, when that fails to parse, silently takes the raw text as a string instead:
 * this text always parses. Strings come back exactly, with one exception TOML forces: a lone
 * surrogate (which UTF-8 cannot carry either) comes back as U+FFFD.
 */
export function tomlValue(value: TomlValue): string {
  return stringify({ v: [[value]] }).slice(WRAP_START.length, -WRAP_END.length);
}
