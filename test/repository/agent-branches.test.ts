// No source file outside an agent adapter's own folder chooses by a CLI's name, and none outside a
// model provider's own files by a provider's: no comparison with the name, no `case` on it, no
// record keyed by it, no property read by it, no call or value that names one. Each such place would
// compile unchanged for a third CLI and silently give it one of the two it was written for.
// Invariant: the names come from the registries (AGENT_CLIS, the price table's providers), so a
// new CLI is probed the day it is registered; and the probe is shown to fire on a file that branches.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { AGENT_CLIS } from "../../src/agents/index.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const PROVIDERS = ["anthropic", "openai"] as const;

/** Where a name may be spelled: the adapters' own folders and their record; the providers' own files; the client generated from the served schema. */
function allowed(path: string, name: string): boolean {
  if (path === "src/client/openapi-paths.ts") return true;
  if ((AGENT_CLIS as readonly string[]).includes(name))
    return path === "src/agents/adapters.ts" || AGENT_CLIS.some((cli) => path.startsWith(`src/agents/${cli}/`));
  return path.startsWith("src/egress/providers/") || path === "src/plan/prices.ts" || AGENT_CLIS.some((cli) => path.startsWith(`src/agents/${cli}/`));
}

/**
 * The code of a file with comments and template text blanked and every string literal that is not
 * exactly a name blanked too (line breaks kept), so prose never fires and a name stays where it stands.
 */
function codeOf(text: string, names: readonly string[]): string {
  const blank = (s: string): string => s.replace(/[^\n]/g, " ");
  let out = "";
  const braces: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (braces.at(-1) === "`") {
      const piece = c === "\\" || text.startsWith("${", i) ? text.slice(i, i + 2) : c;
      if (piece === "${") braces.push(piece);
      if (piece === "`") braces.pop();
      out += piece === "`" || piece === "${" ? piece : blank(piece);
      i += piece.length - 1;
    } else if (text.startsWith("//", i) || text.startsWith("/*", i)) {
      const close = text.startsWith("//", i) ? text.indexOf("\n", i) : text.indexOf("*/", i) + 2;
      const stop = close > i ? close : text.length;
      out += blank(text.slice(i, stop));
      i = stop - 1;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      const content = text.slice(i + 1, j);
      out += names.includes(content) ? `"${content}"` : `"${blank(content)}"`;
      i = j;
    } else {
      if (c === "`" || c === "{") braces.push(c);
      if (c === "}") braces.pop();
      out += c;
    }
  }
  return out;
}

/** Each place `text` chooses by one of `names`, as "line: what" (1-based lines). */
function branchesOn(text: string, names: readonly string[]): string[] {
  const alternatives = names.join("|");
  const patterns: ReadonlyArray<readonly [string, RegExp]> = [
    ["compares with", new RegExp(`[!=]==?\\s*"(${alternatives})"|"(${alternatives})"\\s*[!=]==?`, "g")],
    ["switches on", new RegExp(`\\bcase\\s+"(${alternatives})"\\s*:`, "g")],
    ["keys a record by", new RegExp(`(?:^|[{,])\\s*"?(${alternatives})"?\\s*\\??\\s*:(?!:)`, "gm")],
    ["reads a property named", new RegExp(`\\??\\.(${alternatives})\\b|\\[\\s*"(${alternatives})"\\s*\\]`, "g")],
    ["names", new RegExp(`"(${alternatives})"`, "g")],
  ];
  const code = codeOf(text, names);
  const found = new Map<number, string>();
  for (const [what, pattern] of patterns) {
    for (const match of code.matchAll(pattern)) {
      const index = match.index ?? 0;
      if (found.has(index)) continue;
      const name = match.slice(1).find((group) => group !== undefined) ?? "";
      // A record's key is found at the name, whatever precedes it; one place is reported once.
      const at = index + match[0].indexOf(name);
      if ([...found.keys()].some((seen) => Math.abs(seen - at) <= name.length + 1)) continue;
      found.set(at, `${code.slice(0, at).split("\n").length}: ${what} ${JSON.stringify(name)}`);
    }
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, line]) => line);
}

function sourceFiles(): string[] {
  return readdirSync(join(REPO, "src"), { recursive: true, encoding: "utf8" })
    .map((name) => `src/${name.split("\\").join("/")}`)
    .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts"))
    .sort();
}

describe("choosing by an agent CLI's name", () => {
  it("happens only in the CLI's own adapter folder, and by a provider's name only in the provider's own files", () => {
    const names = [...AGENT_CLIS, ...PROVIDERS];
    const branches = sourceFiles().flatMap((path) => {
      const text = readFileSync(join(REPO, path), "utf8");
      return branchesOn(text, names)
        .map((line) => ({ line, name: /"([^"]+)"$/.exec(line)?.[1] ?? "" }))
        .filter(({ name }) => !allowed(path, name))
        .map(({ line }) => `${path}:${line}`);
    });
    expect(branches).toEqual([]);
  });

  it("is found by the probe in each of its spellings, and never in prose", () => {
    const probe = [
      '// a comment naming claude === "claude" is prose',
      'const argv = cli === "claude" ? claudeArgs(request) : codexArgs(request);',
      'if ("codex" !== request.cli) return;',
      "switch (cli) {",
      '  case "codex":',
      "}",
      'const KEYS = { claude: "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY" };',
      "type Upstreams = { claude?: string };",
      "const efforts = AGENT_EFFORTS.claude;",
      'const env = publicEnvironment("codex");',
      "const said = `run claude or codex: ${name}`;",
      'const words = "claude or codex";',
    ].join("\n");
    expect(branchesOn(probe, ["claude", "codex"])).toEqual([
      '2: compares with "claude"',
      '3: compares with "codex"',
      '5: switches on "codex"',
      '7: keys a record by "claude"',
      '7: keys a record by "codex"',
      '8: keys a record by "claude"',
      '9: reads a property named "claude"',
      '10: names "codex"',
    ]);
  });
});
