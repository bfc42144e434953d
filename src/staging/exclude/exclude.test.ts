// The globs of inputs.exclude: what each one matches, the same as a plain regular expression (the
// form a worker tests), and each pattern that could not mean what its writer meant refused by name.

import { describe, expect, it } from "vitest";
import { excludedBy, excludeExpressions, excludeProblem, withinExcluded } from "./index.js";

const PATHS = [
  "out",
  "out/a.html",
  "docs/out",
  "node_modules",
  "a/node_modules",
  ".cache/x/node_modules",
  "dist",
  "packages/web/dist",
  "src/app.log",
  "app.log",
  ".env",
];

describe("inputs.exclude's globs", () => {
  it.each<[string, string[]]>([
    ["out", ["out"]],
    ["out/", ["out"]],
    ["./out", ["out"]],
    ["**/node_modules", ["node_modules", "a/node_modules", ".cache/x/node_modules"]],
    ["packages/*/dist", ["packages/web/dist"]],
    ["*.log", ["app.log"]],
    ["**/*.log", ["src/app.log", "app.log"]],
    [".env", [".env"]],
  ])("%s matches exactly what it says, and the worker's regular expression agrees", (pattern, matched) => {
    const excluded = excludedBy([pattern]);
    const [expression] = excludeExpressions([pattern]).map(({ source, flags }) => new RegExp(source, flags));
    expect(PATHS.filter(excluded)).toEqual(matched);
    expect(PATHS.filter((path) => expression?.test(path))).toEqual(matched);
  });

  it("counts a path below a left-out directory as left out", () => {
    const excluded = excludedBy(["dist"]);
    expect(withinExcluded(excluded, "dist/app.js")).toBe(true);
    expect(withinExcluded(excluded, "src/dist.js")).toBe(false);
  });

  it("takes no patterns, or none at all, as nothing to leave out", () => {
    expect(excludeProblem(undefined, {})).toBeUndefined();
    expect(excludeProblem([], {})).toBeUndefined();
    expect(PATHS.filter(excludedBy([]))).toEqual([]);
  });

  it("refuses a pattern longer than MAX_EXCLUDE_PATTERN_LENGTH and one holding a NUL, quoting it", () => {
    expect(excludeProblem(["a".repeat(257)], { directory: "/in" })).toMatch(/^inputs\.exclude\[0\] "a{257}" is longer than MAX_EXCLUDE_PATTERN_LENGTH \(256\)/);
    expect(excludeProblem(["ok", "a\0b"], { directory: "/in" })).toBe(
      'inputs.exclude[1] "a\\u0000b" holds a NUL byte, which no path holds; write a glob without it',
    );
  });
});
