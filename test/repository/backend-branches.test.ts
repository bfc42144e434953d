// What varies is chosen once: a Run Backend (one Docker engine, several,
// Kubernetes) is one implementation of src/runtime/run-backend.ts, chosen in run-backends.ts, and
// nothing else branches on which one is in use. Every source file is read for a branch on the
// backend's options (`kubernetes !== undefined`, `engines === undefined`, `engineSet?.`, ...): the
// implementations and the choice may hold them; the runtime may hold none; the files above it that
// read a user's flags or options before a backend is chosen from them, or that still branch, are listed
// with how many, a ceiling that may only come down.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** A branch on which backend is in use, as its options say. */
const BRANCH = /\b(?:kubernetes|engines|engineSet)\b\s*(?:[!=]==\s*(?:undefined|true)|\?\.|\?\?)|\bengines\.length\b/g;

/** The backend implementations and the one choice: theirs to branch on. */
const BACKENDS = new Set([
  "src/runtime/run-backends.ts",
  "src/runtime/engine-backend.ts",
  "src/runtime/engine-set-backend.ts",
  "src/runtime/pod-backend.ts",
  "src/runtime/pod-refusals.ts",
  // The set's own check of its list of engines.
  "src/runtime/engines/engine-set.ts",
]);

/**
 * Files above the runtime that read which backend a user named from the user's own words, before any
 * backend is chosen from them, and how many times: a ceiling that may only come down. Each is a parse
 * of a flag or an option, never a question a chosen backend could answer.
 */
const OPTION_READS: Readonly<Record<string, number>> = {
  // Whether --engine was given, to ask the backend whether it refuses it (serveRefusal).
  "src/server/serve/serve-kubernetes.ts": 2,
  // serve's --engine list made an engine set, which the backend is then chosen from (serviceBackendOf).
  "src/server/serve/serve-backend.ts": 2,
  // `serve --engine`: the flags several engines cannot go with, and the list handed to serve.
  "src/cli/command-serve.ts": 2,
  // `run --kubernetes`: refused with --remote, and its namespace handed to the Run.
  "src/cli/command-run.ts": 2,
  // `doctor --kubernetes`: refused with --engine, and the kubeconfig loaded only when it is given.
  "src/cli/command-doctor.ts": 2,
  // doctor makes no runtime to ask: where a Run would go is read from its options (the cluster, or the engines' list).
  "src/cli/doctor.ts": 2,
  // `plan --kubernetes`, read once: which rendering plan prints (the Pod, or the one docker run).
  "src/cli/command-plan.ts": 1,
};

/** Files above the runtime that still branch where a backend could answer, and how many times: a ceiling that may only come down. */
const NOT_YET_ASKED: Readonly<Record<string, number>> = {};

const CEILINGS: Readonly<Record<string, number>> = { ...OPTION_READS, ...NOT_YET_ASKED };

/** The backend branches of one source text, as their lines (comments left out). */
function backendBranches(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => !/^\s*(?:\/\/|\*|\/\*)/.test(line))
    .flatMap((line) => [...line.matchAll(BRANCH)].map(() => line.trim()));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [relative(REPO, path).split("\\").join("/")] : [];
  });
}

describe("the Run Backend is chosen once", () => {
  const branches = new Map(
    sourceFiles(join(REPO, "src"))
      .filter((file) => !BACKENDS.has(file))
      .map((file) => [file, backendBranches(readFileSync(join(REPO, file), "utf8"))] as const)
      .filter(([, found]) => found.length > 0),
  );

  it("has no branch on which backend is in use outside the backends and their choice", () => {
    const over = [...branches]
      .filter(([file, found]) => found.length > (CEILINGS[file] ?? 0))
      .map(([file, found]) => `${file}: ${found.length} branch(es), at most ${CEILINGS[file] ?? 0}: ${found.join(" | ")}`);
    expect(over).toEqual([]);
  });

  it("keeps the runtime free of them: it asks its backend", () => {
    expect([...branches.keys()].filter((file) => file.startsWith("src/runtime/"))).toEqual([]);
  });

  it("finds a branch in each form it takes, and not in a comment", () => {
    expect(backendBranches("  if (ctx.kubernetes !== undefined) {")).toHaveLength(1);
    expect(backendBranches("const lease = shared.engineSet === undefined ? undefined : x;")).toHaveLength(1);
    expect(backendBranches("engineSet?.onDrain(f); if (flags.kubernetes === true) go();")).toHaveLength(2);
    expect(backendBranches("if (options.engines.length === 0) return;")).toHaveLength(1);
    expect(backendBranches("  // kubernetes !== undefined is the backend's to say")).toEqual([]);
    expect(backendBranches('const refused = backend.refusal({ needs: "session", asked: "--resume" });')).toEqual([]);
  });
});
