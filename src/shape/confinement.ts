// Decides which imports the source tree allows: front doors, layer ranks, the service and the
// command never speaking to the engine, dockerode values only in
// the engine, nothing outside src/ and none of the package's entry points (src/index.ts,
// src/subpaths/) except from tests; and finds import circles among source files.
// Invariant: pure and exhaustive — every import form in every file is checked, and each broken
// rule yields one message naming the importing file, the specifier and the rule.
import { posix } from "node:path";

export interface SourceFile {
  readonly path: string; // relative to the repo root, forward slashes: "src/runtime/run.ts"
  readonly text: string;
}

interface Import {
  readonly specifier: string;
  readonly typeOnly: boolean;
}

// Lower ranks sit underneath: a folder may import only folders of a strictly lower rank.
const RANKS: Readonly<Record<string, number>> = {
  errors: -1, // beneath the leaves: every folder may import it, and it imports none
  mounts: 0,
  plan: 0,
  redact: 0,
  // Telling slow from dead: bounds stretched by the machine's load, peers given up only when shown gone.
  liveness: 0,
  shape: 0,
  // Whether an IP address is public: the webhook check and the egress proxy's destinations share it.
  address: 0,
  // A Run's spans through @opentelemetry/api alone: the runtime, the runner and the service use it.
  trace: 0,
  container: 1,
  agents: 1,
  engine: 2,
  // Kubernetes, the other engine: beside src/engine, never importing it (nor dockerode).
  kube: 2,
  staging: 2,
  egress: 2,
  // What a remote caller installs (agentcage/client): never the service, the runtime or the engine.
  client: 2,
  runtime: 3,
  gateway: 4,
  probes: 4,
  "stand-in": 4,
  runner: 5,
  testing: 6,
  // The package's subpaths (agentcage/runtime, /kubernetes, /egress, /agents): doors over other folders' doors, imported by none.
  subpaths: 6,
  mcp: 7,
  server: 8,
  cli: 9,
};
const PACKAGE_ROOT = "src";
// The package's subpaths (agentcage/runtime, ...): entry points like src/index.ts, a door each.
const ENTRY_POINTS = "src/subpaths";

const STATIC = /^[ \t]*(?:import|export)\s+(type\s+)?([\w$]+\s*,\s*)?(\*\s*(?:as\s+[\w$]+)?|\{[^}]*\}|[\w$]+)\s*from\s*(["'])([^"'\n]+)\4/gm;
const SIDE_EFFECT = /^[ \t]*import\s*(["'])([^"'\n]+)\1/gm;
const DYNAMIC = /\bimport\s*\(\s*(["'])([^"'\n]+)\1\s*\)/g;

export function findViolations(files: ReadonlyArray<SourceFile>): string[] {
  const leaves = sharedLeaves(files);
  return files.flatMap((file) =>
    importsOf(file.text).flatMap(({ specifier, typeOnly }) =>
      brokenRules(file.path, specifier, typeOnly, leaves).map((rule) => `${file.path} imports "${specifier}": ${rule}`),
    ),
  );
}

// A room's shared leaves: the files directly in a top folder (src/server/caller.ts) that import
// no sub-folder of it, so its sub-folders may import them without a circle through the door.
function sharedLeaves(files: ReadonlyArray<SourceFile>): ReadonlySet<string> {
  const leaves = new Set<string>();
  for (const file of files) {
    const parts = file.path.split("/");
    if (parts.length !== 3 || file.path.endsWith(".test.ts") || parts[2] === "index.ts") continue;
    const room = posix.dirname(file.path);
    const intoSubFolder = importsOf(file.text).some(({ specifier }) => {
      const target = posix.join(room, specifier);
      return specifier.startsWith(".") && target.startsWith(`${room}/`) && posix.dirname(target) !== room;
    });
    if (!intoSubFolder) leaves.add(file.path.replace(/\.ts$/, ".js"));
  }
  return leaves;
}

function brokenRules(importer: string, specifier: string, typeOnly: boolean, leaves: ReadonlySet<string>): string[] {
  const from = topFolder(importer);
  if (!specifier.startsWith(".")) {
    const isDockerode = specifier === "dockerode" || specifier.startsWith("dockerode/");
    return isDockerode && !typeOnly && from !== "engine" ? ["dockerode values only in the engine; outside src/engine/ use `import type`"] : [];
  }
  const isTest = importer.endsWith(".test.ts");
  const dir = posix.dirname(importer);
  const target = posix.join(dir, specifier);
  const targetDir = posix.dirname(target);
  const isIndex = posix.basename(target) === "index.js";
  if (!target.startsWith(`${PACKAGE_ROOT}/`)) {
    return isTest ? [] : ["only tests may reach outside src/"];
  }
  if (targetDir === dir) return [];
  if (targetDir === PACKAGE_ROOT) {
    return isTest && isIndex ? [] : ["only tests may import the package root, and only src/index.ts"];
  }
  if (targetDir === ENTRY_POINTS && dir !== ENTRY_POINTS) {
    return isTest ? [] : ["only tests may import the package's entry points (src/index.ts, src/subpaths/)"];
  }
  const to = topFolder(target);
  // A room's sub-folder (src/server/runs/) may import its room's shared leaves (src/server/caller.ts).
  const roomDir = `${PACKAGE_ROOT}/${to}`;
  if (from === to && targetDir === roomDir && posix.dirname(dir) === roomDir && leaves.has(target)) return [];
  const broken: string[] = [];
  // From outside a room, only the room's own door: never a sub-folder's (src/server/runs/index.js).
  if (to !== undefined && from !== to && targetDir !== roomDir) {
    broken.push(`rooms: src/${to}/ is entered from outside only through ${roomDir}/index.js, never ${targetDir}/`);
  } else if (!isIndex) broken.push(`front doors: another directory is reached only through ${targetDir}/index.js`);
  if (to === undefined || from === to) return broken;
  const [rankFrom, rankTo] = [from === undefined ? 100 : RANKS[from], RANKS[to]];
  if (rankTo === undefined) broken.push(`layers: unknown folder src/${to}/; add it to the ranks`);
  if (rankFrom === undefined) broken.push(`layers: unknown folder src/${from}/; add it to the ranks`);
  if (rankFrom !== undefined && rankTo !== undefined && rankTo >= rankFrom) {
    broken.push(`layers: ${from} (rank ${rankFrom}) may import only lower ranks, not ${to} (rank ${rankTo})`);
  }
  if ((from === "server" || from === "cli") && to === "engine") {
    broken.push("the service and the command call the library, never the engine: reach it through the runtime, the runner or the probes");
  }
  return broken;
}

// "src/runtime/run.ts" -> "runtime"; a file directly in src/ (the package root) -> undefined.
function topFolder(path: string): string | undefined {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1] : undefined;
}

function importsOf(text: string): Import[] {
  const code = codeOnly(text);
  const found: Import[] = [];
  for (const m of code.matchAll(STATIC)) {
    const clause = m[3] ?? "";
    const names = clause.startsWith("{")
      ? clause
          .slice(1, -1)
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean)
      : [];
    const allTyped = m[2] === undefined && names.length > 0 && names.every((n) => /^type\s/.test(n));
    found.push({ specifier: m[5] ?? "", typeOnly: m[1] !== undefined || allTyped });
  }
  for (const m of code.matchAll(SIDE_EFFECT)) found.push({ specifier: m[2] ?? "", typeOnly: false });
  for (const m of code.matchAll(DYNAMIC)) found.push({ specifier: m[2] ?? "", typeOnly: false });
  return found;
}

// Blanks comments and template-literal text (keeping line breaks), so an import written in prose
// or inside a template string is not taken for a real one. Quoted strings are kept: they hold
// the specifiers. A quoted string ends at a line break, so a quote inside a regex stays harmless.
function codeOnly(text: string): string {
  const blank = (s: string): string => s.replace(/[^\n]/g, " ");
  const stack: string[] = []; // "`" inside a template; "${" or "{" inside braces of code
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (stack.at(-1) === "`") {
      const piece = c === "\\" || text.startsWith("${", i) ? text.slice(i, i + 2) : c;
      if (piece === "${") stack.push(piece);
      if (piece === "`") stack.pop();
      out += piece === "`" ? piece : blank(piece);
      i += piece.length - 1;
    } else if (text.startsWith("//", i) || text.startsWith("/*", i)) {
      const close = text.startsWith("//", i) ? text.indexOf("\n", i) : text.indexOf("*/", i) + 2;
      const stop = close > i ? close : text.length;
      out += blank(text.slice(i, stop));
      i = stop - 1;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else {
      if (c === "`" || c === "{") stack.push(c);
      if (c === "}") stack.pop();
      out += c;
    }
  }
  return out;
}

/**
 * What loading `entries` loads: every source file and package reached through static imports of
 * values (type-only imports are erased; a dynamic import is loaded only when its code runs).
 */
export function reachedFrom(files: ReadonlyArray<SourceFile>, entries: readonly string[]): { readonly files: string[]; readonly packages: string[] } {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const reached = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (reached.has(path)) continue;
    reached.add(path);
    const text = byPath.get(path)?.text ?? "";
    const code = codeOnly(text);
    const dynamic = new Set([...code.matchAll(DYNAMIC)].map((m) => m[2] ?? ""));
    for (const { specifier, typeOnly } of importsOf(text)) {
      if (typeOnly || dynamic.has(specifier)) continue;
      if (specifier.startsWith(".")) queue.push(posix.join(posix.dirname(path), specifier).replace(/\.js$/, ".ts"));
      else if (!specifier.startsWith("node:"))
        packages.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? specifier));
    }
  }
  return { files: [...reached].sort(), packages: [...packages].sort() };
}

/**
 * The import circles among the source files (tests left out): each as the files of one strongly
 * connected part of the import graph, type-only imports included, in a stable order.
 */
export function findCircles(files: ReadonlyArray<SourceFile>): string[][] {
  const known = new Set(files.map((file) => file.path));
  const edges = new Map<string, string[]>();
  for (const file of files) {
    if (file.path.endsWith(".test.ts")) continue;
    const targets = importsOf(file.text)
      .filter(({ specifier }) => specifier.startsWith("."))
      .map(({ specifier }) => posix.join(posix.dirname(file.path), specifier).replace(/\.js$/, ".ts"))
      .filter((target) => known.has(target) && !target.endsWith(".test.ts"));
    edges.set(file.path, [...new Set(targets)].sort());
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      part.push(member);
      if (member === node) break;
    }
    if (part.length > 1 || (edges.get(node) ?? []).includes(node)) circles.push(part.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return circles.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}
