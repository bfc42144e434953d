// agentcage's version has one source: this folder's package-version.ts reads package.json, and the
// command's --version and the service's GET /v1/service both take it from there.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { agentcageVersion } from "./index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

describe("agentcage's version", () => {
  it("is package.json's", () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(agentcageVersion()).toBe(version);
  });

  it("is read from package.json in one source file only", () => {
    const readers = readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
      .filter((name) => /new URL\(\s*["'](?:\.\.\/)+package\.json["']/.test(readFileSync(join(repoRoot, "src", name), "utf8")))
      .map((name) => name.split("\\").join("/"));
    expect(readers).toEqual(["runner/package-version.ts"]);
  });
});
