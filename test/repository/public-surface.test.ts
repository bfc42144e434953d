// The package root stays what a user of the library calls and the types its signatures reach: at
// most MAX_ROOT_NAMES names; the rest live behind the subpaths package.json exports. Each entry
// point's names are counted from its door's own export statements with the TypeScript parser (no
// program, no checker: milliseconds), so a door that re-exports a whole folder (`export *`) is
// refused: it would hide how many names it adds. The probes break each rule once.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** The root's bound (it held 272 before the subpaths): room for a few more, not for a folder's worth. */
const MAX_ROOT_NAMES = 100;

type Door = { readonly names: readonly string[]; readonly refusals: readonly string[] };

/** The names a door file exports, and what it exports that cannot be counted by name. */
function doorNames(path: string, text: string): Door {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const names: string[] = [];
  const refusals: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined) refusals.push(`${path}: \`${statement.getText(source)}\` exports a whole module; name what it exports`);
      else if (ts.isNamespaceExport(clause)) names.push(clause.name.text);
      else names.push(...clause.elements.map((element) => element.name.text));
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText(source)));
      else if ("name" in statement && statement.name !== undefined) names.push((statement.name as ts.Identifier).text);
      else refusals.push(`${path}: an export without a name`);
    } else if (ts.isExportAssignment(statement)) refusals.push(`${path}: an export without a name`);
  }
  return { names, refusals };
}

/** What is wrong with the root door: too many names, or names that cannot be counted. */
function rootProblems(door: Door, max = MAX_ROOT_NAMES): string[] {
  const over = door.names.length > max ? [`the root exports ${door.names.length} names, at most ${max}: move the rest behind a subpath`] : [];
  return [...over, ...door.refusals];
}

/** package.json's entry points: subpath -> the door in src/ that dist/ compiles it from. */
function entryPoints(): Map<string, string> {
  const exports = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).exports as Record<string, string | { types: string; default: string }>;
  const doors = new Map<string, string>();
  for (const [subpath, target] of Object.entries(exports)) {
    if (typeof target === "string") continue; // ./package.json
    expect(target.types, subpath).toBe(target.default.replace(/\.js$/, ".d.ts"));
    doors.set(subpath, target.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
  }
  return doors;
}

describe("the public surface", () => {
  const doors = entryPoints();
  const counted = new Map([...doors].map(([subpath, file]) => [subpath, doorNames(file, readFileSync(join(REPO, file), "utf8"))]));

  it(`keeps the root to at most ${MAX_ROOT_NAMES} names`, () => {
    const root = counted.get(".");
    expect(root?.names.length).toBeGreaterThan(20); // a parser that finds nothing fails
    expect(rootProblems(root ?? { names: [], refusals: [] })).toEqual([]);
  });

  it("names every export of every entry point, each once", () => {
    for (const [subpath, door] of counted) {
      expect(door.refusals, subpath).toEqual([]);
      expect(
        door.names.filter((name, index) => door.names.indexOf(name) !== index),
        subpath,
      ).toEqual([]);
    }
  });

  it("fires on a root one name over, and on a door that exports a whole module", () => {
    const names = Array.from({ length: MAX_ROOT_NAMES + 1 }, (_, index) => `name${index}`);
    const over = doorNames("src/index.ts", `export { ${names.slice(1).join(", ")} } from "./a/index.js";\nexport const ${names[0]} = 1;`);
    expect(over.names).toHaveLength(MAX_ROOT_NAMES + 1);
    expect(rootProblems(over)).toEqual([`the root exports ${MAX_ROOT_NAMES + 1} names, at most ${MAX_ROOT_NAMES}: move the rest behind a subpath`]);
    expect(
      rootProblems(
        doorNames(
          "src/index.ts",
          names
            .slice(1)
            .map((name) => `export type { ${name} } from "./a/index.js";`)
            .join("\n"),
        ),
      ),
    ).toEqual([]);
    const whole = doorNames("src/index.ts", `export * as limits from "./limits.js";\nexport * from "./runtime/index.js";\nexport default 1;`);
    expect(whole.names).toEqual(["limits"]);
    expect(rootProblems(whole)).toEqual([
      'src/index.ts: `export * from "./runtime/index.js";` exports a whole module; name what it exports',
      "src/index.ts: an export without a name",
    ]);
  });
});
