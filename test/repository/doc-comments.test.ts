// Every name the package root exports is documented where it is declared, so an editor's hover and
// the generated reference say what it is. Checked over the source with the TypeScript checker
// (a program from src/index.ts, no emit: a few seconds), not over the packed package.

import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { undocumentedExports } from "../package/public-types.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

describe("the package root's doc comments", () => {
  it("documents every name it exports on its declaration", () => {
    expect(undocumentedExports(REPO, "src/index.ts")).toEqual([]);
  });
});
