// How the source tree wears, in numbers a change can be held to: the largest source files, the
// longest functions (every function, method and arrow, measured in lines by the TypeScript parser)
// and the import circles among source files (src/shape's own check). Tests are left out.
// CLI: `npm run --silent shape` (after `npm run build:tools`, `node dist-tools/scripts/shape-report.js [top] [checkout]`:
// another checkout's tree, measured the same way, e.g. an earlier commit's to compare with).

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { findCircles } from "../src/shape/index.js";

type Measured = { readonly where: string; readonly lines: number };

const here = path.dirname(fileURLToPath(import.meta.url));
// From scripts/ or from dist-tools/scripts/: the root is the one holding package.json (dist-tools/ holds a compiled src/ too).
const OWN_ROOT = [path.resolve(here, ".."), path.resolve(here, "..", "..")].find((dir) => readdirSync(dir).includes("package.json")) ?? process.cwd();
const REPO_ROOT = process.argv[3] === undefined ? OWN_ROOT : path.resolve(process.argv[3]);

function sourceFiles(): { readonly path: string; readonly text: string }[] {
  return readdirSync(path.join(REPO_ROOT, "src"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => `src/${name.split(path.sep).join("/")}`)
    .sort()
    .map((file) => ({ path: file, text: readFileSync(path.join(REPO_ROOT, file), "utf8") }));
}

function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Every function-like node with a body, named where it can be: `name`, `Class.method`, or `<arrow>` with its line. */
function functionsOf(file: string, text: string): Measured[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ where: `${file}:${start + 1} ${nameOf(node)}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = (node as { readonly name?: ts.Node }).name;
  if (named !== undefined && ts.isIdentifier(named)) return named.text;
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "<function>";
}

const top = Number(process.argv[2] ?? "5");
const files = sourceFiles();
const bySize = files.map((file) => ({ where: file.path, lines: lineCount(file.text) })).sort((a, b) => b.lines - a.lines);
const byLength = files.flatMap((file) => functionsOf(file.path, file.text)).sort((a, b) => b.lines - a.lines);
const circles = findCircles(files);
const table = (rows: readonly Measured[]) => rows.slice(0, top).map((row) => `  ${String(row.lines).padStart(5)}  ${row.where}`);
process.stdout.write(
  [
    `source files: ${files.length}, ${bySize.reduce((sum, row) => sum + row.lines, 0)} lines`,
    "largest files (lines):",
    ...table(bySize),
    "longest functions (lines):",
    ...table(byLength),
    `import circles: ${circles.length}`,
    ...circles.map((circle) => `  ${circle.join(" -> ")}`),
    "",
  ].join("\n"),
);
