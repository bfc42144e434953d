// Which paths of an input directory a Run leaves out (`inputs.exclude`): globs, matched by
// picomatch against each entry's path relative to that directory ("out", "node_modules",
// "**/dist"). A directory left out is never listed. Checked before anything is made, and compiled
// to regular expressions, which a worker (that cannot load the library) tests as they are.

import { posix } from "node:path";
import picomatch from "picomatch";

/** The most patterns one Run may give, and the longest pattern. */
export const MAX_EXCLUDE_PATTERNS = 64;
export const MAX_EXCLUDE_PATTERN_LENGTH = 256;

/** `**` and `*` match names that begin with a dot too, so a glob for every node_modules finds the one under .cache/. */
const MATCH_OPTIONS: picomatch.PicomatchOptions = { dot: true };
const EXAMPLES = 'like "node_modules" or "**/dist"';

/** A compiled pattern as it crosses to a worker. */
export type ExcludeExpression = { readonly source: string; readonly flags: string };

/** Whether a path relative to the input directory ("src/a.ts") is one to leave out. */
export type Excluded = (relative: string) => boolean;

/**
 * Why `exclude` (with the `files` the same inputs name) cannot be used, naming the pattern and
 * quoting it; undefined when it can.
 */
export function excludeProblem(exclude: unknown, inputs: { readonly directory?: unknown; readonly files?: unknown }): string | undefined {
  if (exclude === undefined) return undefined;
  if (!Array.isArray(exclude)) return `inputs.exclude ${describe(exclude)} is not a list; pass globs of paths to leave out, ${EXAMPLES}`;
  if (exclude.length === 0) return undefined;
  if (inputs.directory === undefined) return "inputs.exclude leaves paths out of inputs.directory, and there is none; pass the directory, or drop exclude";
  if (exclude.length > MAX_EXCLUDE_PATTERNS)
    return `inputs.exclude holds ${exclude.length} patterns, more than MAX_EXCLUDE_PATTERNS (${MAX_EXCLUDE_PATTERNS}); use ** to cover more in one`;
  for (const [index, pattern] of exclude.entries()) {
    const problem = patternProblem(pattern);
    if (problem !== undefined) return `inputs.exclude[${index}] ${describe(pattern)} ${problem}`;
  }
  const excluded = excludedBy(exclude as string[]);
  // A file named on purpose and left out at once would be staged anyway, and its edits dropped from the change set.
  const named =
    typeof inputs.files === "object" && inputs.files !== null ? Object.keys(inputs.files).find((path) => withinExcluded(excluded, path)) : undefined;
  if (named !== undefined) return `inputs.files names ${JSON.stringify(named)}, which inputs.exclude leaves out; drop one of the two`;
  return undefined;
}

/** The test of `patterns`, already checked by excludeProblem. */
export function excludedBy(patterns: readonly string[]): Excluded {
  if (patterns.length === 0) return () => false;
  const expressions = patterns.map((pattern) => picomatch.makeRe(normalize(pattern), MATCH_OPTIONS));
  return (relative) => expressions.some((expression) => expression.test(relative));
}

/** `patterns` as regular expressions a worker rebuilds with new RegExp(source, flags). */
export function excludeExpressions(patterns: readonly string[]): readonly ExcludeExpression[] {
  return patterns.map((pattern) => {
    const { source, flags } = picomatch.makeRe(normalize(pattern), MATCH_OPTIONS);
    return { source, flags };
  });
}

/** Whether `relative` or a directory on its way is left out: a walk never goes below one that is. */
export function withinExcluded(excluded: Excluded, relative: string): boolean {
  const parts = relative.split("/").filter((part) => part !== "" && part !== ".");
  return parts.some((_, index) => excluded(parts.slice(0, index + 1).join("/")));
}

function patternProblem(pattern: unknown): string | undefined {
  if (typeof pattern !== "string") return `is not a string; write a glob, ${EXAMPLES}`;
  if (pattern === "" || normalize(pattern) === "") return `is empty; write a glob, ${EXAMPLES}`;
  if (pattern.length > MAX_EXCLUDE_PATTERN_LENGTH) return `is longer than MAX_EXCLUDE_PATTERN_LENGTH (${MAX_EXCLUDE_PATTERN_LENGTH}); write a shorter glob`;
  if (pattern.includes("\0")) return "holds a NUL byte, which no path holds; write a glob without it";
  if (pattern.startsWith("/")) return `is absolute; write a path relative to the input directory, ${EXAMPLES}`;
  // With several patterns picomatch matches any one, so "!x" would leave out everything but x.
  if (pattern.startsWith("!")) return "is a negation, which exclude does not take; list only what to leave out";
  if (pattern.split("/").includes("..")) {
    const resolved = posix.normalize(pattern);
    if (resolved === ".." || resolved.startsWith("../")) return `climbs out of the input directory; write a path inside it, ${EXAMPLES}`;
    // picomatch matches ".." literally, and no path of the walk holds one.
    return `holds "..", which no path below the input directory does; write it as ${JSON.stringify(resolved)}`;
  }
  return undefined;
}

/** The one path `pattern` names when it holds no glob syntax ("node_modules", "./dist/"); undefined for a glob. */
export function literalPath(pattern: string): string | undefined {
  const normalized = normalize(pattern);
  return picomatch.scan(normalized).isGlob ? undefined : normalized;
}

/** "./dist/" as "dist": the ways people write a directory, as picomatch matches a path. */
function normalize(pattern: string): string {
  return pattern.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
}

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
