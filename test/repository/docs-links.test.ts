// The guides say only what is there. In README.md and docs/*.md: every relative link names a file
// of the repository (and its #anchor a heading of that file, by GitHub's slugs); every `npm run X`
// quoted names a script of package.json; every `agentcage <subcommand>` quoted (or `node
// dist/cli/main.js <subcommand>`) names a subcommand of the command, and every --flag after it an
// option of that subcommand, read from the program itself. Every page of docs/ is in its index, and
// the README stays a five-minute read. The checker is held to probes that each break one rule.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { ProgramIo } from "../../src/cli/io.js";
import { buildProgram } from "../../src/cli/program.js";
import type { ViewStream } from "../../src/cli/view.js";
import { textStream } from "../support/text-stream.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** What a newcomer reads in five minutes: the rest belongs in docs/. */
const README_MAX_LINES = 400;

/** A page cut into what it says and what it quotes: headings, prose (code removed), and code (spans and blocks' lines). */
type Parsed = { readonly headings: string[]; readonly prose: string[]; readonly code: string[] };

function parse(text: string): Parsed {
  const parsed: Parsed = { headings: [], prose: [], code: [] };
  let fence: string | undefined;
  let block: string[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    const joined = paragraph.join("\n");
    paragraph = [];
    // A code span may wrap across lines; what it quotes is read as one line.
    const spans = /(`+)([\s\S]*?[^`])\1(?!`)/g;
    for (const [, , span] of joined.matchAll(spans)) parsed.code.push((span ?? "").replace(/\s*\n\s*/g, " ").trim());
    parsed.prose.push(joined.replace(spans, ""));
  };
  for (const line of text.split("\n")) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker === fence) {
        // A shell line continued with a backslash is one command.
        parsed.code.push(
          ...block
            .join("\n")
            .split(/(?<!\\)\n/)
            .map((l) => l.replace(/\s*\\\n\s*/g, " ")),
        );
        [fence, block] = [undefined, []];
      } else block.push(line);
      continue;
    }
    if (marker !== undefined) {
      endParagraph();
      fence = marker;
      continue;
    }
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading !== undefined) {
      endParagraph();
      parsed.headings.push(heading);
    } else if (line.trim() === "") endParagraph();
    else paragraph.push(line);
  }
  endParagraph();
  return parsed;
}

/** GitHub's anchors for a page's headings: the rendered text, lower-cased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(headings: readonly string[]): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headings) {
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*]/g, "");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Where the checker looks: the repository's files, its scripts, its command. */
type World = {
  readonly read: (path: string) => string | undefined;
  readonly isDirectory: (path: string) => boolean;
  readonly scripts: ReadonlySet<string>;
  readonly program: Command;
};

/** What the checker found wrong, and how much it checked (so that finding nothing to check is seen). */
type Report = { readonly problems: string[]; links: number; scripts: number; commands: number };

function checkLinks(page: string, own: string, parsed: Parsed, world: World, report: Report): void {
  const problems = report.problems;
  for (const prose of parsed.prose) {
    for (const [link, target = ""] of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      report.links += 1;
      const [path = "", anchor] = target.split("#");
      const file = path === "" ? page : normalize(join(dirname(page), path));
      const text = file === page ? own : world.read(file);
      if (text === undefined && !world.isDirectory(file)) {
        problems.push(`${page}: ${link} names ${file}, which is not in the repository`);
      } else if (anchor !== undefined && !(file.endsWith(".md") && text !== undefined && anchorsOf(parse(text).headings).has(anchor))) {
        problems.push(`${page}: ${link} names #${anchor}, which is no heading of ${file}`);
      }
    }
  }
}

/** The subcommand a quoted command line names (its sub-subcommand, when it has them), or why it names none. */
function commandOf(program: Command, words: readonly string[]): Command | string | undefined {
  const [first = "", second = ""] = words;
  if (!/^[a-z][a-z-]*$/.test(first)) return undefined; // `agentcage` as a word of something else
  const sub = program.commands.find((c) => c.name() === first);
  if (sub === undefined) return `"agentcage ${first}" is no subcommand`;
  if (sub.commands.length === 0 || !/^[a-z][a-z|-]*$/.test(second)) return sub;
  const named = second.split("|").map((word) => sub.commands.find((c) => c.name() === word));
  const unknown = second.split("|").filter((_, i) => named[i] === undefined);
  if (unknown.length > 0) return `"agentcage ${first} ${unknown.join("|")}" is no subcommand`;
  return named.length === 1 ? named[0] : sub;
}

function checkCommands(page: string, parsed: Parsed, world: World, report: Report): void {
  const problems = report.problems;
  for (const code of parsed.code) {
    for (const [, script = ""] of code.matchAll(/\bnpm run (?:--silent )?([a-z][\w:.-]*)/g)) {
      report.scripts += 1;
      if (!world.scripts.has(script)) problems.push(`${page}: "npm run ${script}" names no script of package.json (in: ${code})`);
    }
    for (const match of code.matchAll(/(?<![\w./@=-])(?:agentcage|node dist\/cli\/main\.js)(?= )/g)) {
      // The command line, to where the shell would end it, its quoted words (a prompt) left out.
      const line = (code.slice((match.index ?? 0) + match[0].length).split(/[;)<>`]|&&|\s\|\s|\s#|\s\|$/)[0] ?? "").replace(/"[^"]*"|'[^']*'/g, " ");
      const words = line.trim().split(/\s+/);
      const command = commandOf(world.program, words);
      if (command === undefined) continue;
      report.commands += 1;
      if (typeof command === "string") {
        problems.push(`${page}: ${command} (in: ${code})`);
        continue;
      }
      const name = command.parent === world.program ? command.name() : `${command.parent?.name()} ${command.name()}`;
      const flags = new Set(["--help", ...command.options.map((option) => option.long ?? "")]);
      for (const [, flag = ""] of line.matchAll(/(?:^|[\s[(])(--[a-z][a-z0-9-]*)/g)) {
        if (!flags.has(flag)) problems.push(`${page}: ${flag} is no option of "${name}" (in: ${code})`);
      }
    }
  }
}

function check(pages: ReadonlyMap<string, string>, world: World): Report {
  const report: Report = { problems: [], links: 0, scripts: 0, commands: 0 };
  for (const [page, text] of pages) {
    const parsed = parse(text);
    checkLinks(page, text, parsed, world, report);
    checkCommands(page, parsed, world, report);
  }
  return report;
}

function quietProgram(): Command {
  const io: ProgramIo = {
    stdout: textStream<ViewStream>(),
    stderr: textStream<ViewStream>(),
    env: {},
    live: false,
    onInterrupt: () => () => undefined,
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
    readStdin: async () => "",
  };
  return buildProgram(io, () => undefined);
}

const repository: World = {
  read: (path) => (existsSync(join(REPO, path)) && statSync(join(REPO, path)).isFile() ? readFileSync(join(REPO, path), "utf8") : undefined),
  isDirectory: (path) => existsSync(join(REPO, path)) && statSync(join(REPO, path)).isDirectory(),
  scripts: new Set(Object.keys((JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts)),
  program: quietProgram(),
};

const DOCS = readdirSync(join(REPO, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => `docs/${name}`);
const GUIDES = new Map(["README.md", ...DOCS].map((page) => [page, readFileSync(join(REPO, page), "utf8")]));

describe("the README and the guides in docs/", () => {
  it("link only to files and headings that exist, and quote only scripts, subcommands and options that exist", () => {
    expect(DOCS.length).toBeGreaterThan(10);
    const report = check(GUIDES, repository);
    expect(report.problems).toEqual([]);
    // Each kind was found and checked (109 links, 47 scripts and 120 command lines when this was written).
    expect(report.links).toBeGreaterThan(80);
    expect(report.scripts).toBeGreaterThan(30);
    expect(report.commands).toBeGreaterThan(80);
  });

  it("list every page of docs/ in its index, docs/README.md", () => {
    const linked = parse(GUIDES.get("docs/README.md") ?? "").prose.join("\n");
    const unlisted = DOCS.filter((page) => page !== "docs/README.md" && !linked.includes(`](${page.slice("docs/".length)})`));
    expect(unlisted).toEqual([]);
  });

  it(`keep the README to a five-minute read: at most ${README_MAX_LINES} lines`, () => {
    expect((GUIDES.get("README.md") ?? "").split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe("the checker", () => {
  const page = (text: string) => check(new Map([["docs/probe.md", text]]), repository).problems;

  it("reports a link to a file that is not there, and one to a heading that is not there", () => {
    expect(page("See [the errors](errors.md) and [the pool](warm-pool.md#a-warm-pool---pool).")).toEqual([]);
    expect(page("See [the errors](error.md).")).toEqual(["docs/probe.md: [the errors](error.md) names docs/error.md, which is not in the repository"]);
    expect(page("See [the pool](warm-pool.md#a-warm-pool).")).toEqual([
      "docs/probe.md: [the pool](warm-pool.md#a-warm-pool) names #a-warm-pool, which is no heading of docs/warm-pool.md",
    ]);
    expect(page("# One\n\n## One\n\n[a](#one-1) [b](#one-2)")).toEqual(["docs/probe.md: [b](#one-2) names #one-2, which is no heading of docs/probe.md"]);
  });

  it("reads no link inside code, and checks none that leaves the repository", () => {
    expect(page("`[a](nowhere.md)`\n\n```md\n[b](nowhere.md)\n```\n\n[c](https://example.com/x.md)")).toEqual([]);
  });

  it("reports a script package.json does not have", () => {
    expect(page("Run `npm run bench:warm -- --runs 20`, then `npm run --silent shape`.")).toEqual([]);
    expect(page("Run `npm run bench:cold`.")).toEqual(['docs/probe.md: "npm run bench:cold" names no script of package.json (in: npm run bench:cold)']);
  });

  it("reports a subcommand the command does not have, and an option its subcommand does not take", () => {
    const fine = [
      "```sh",
      "KEY=$(npx agentcage keys create --tenant ci --scope runs:write --expires 30d)   # the key alone",
      'agentcage plan --kubernetes --namespace agents claude "Summarise --nothing" \\',
      "  | kubectl apply --dry-run=server -f -",
      "claude mcp add agentcage -- npx agentcage mcp",
      "```",
      "",
      "`agentcage runs ls|show ID|logs ID`, `agentcage serve [--pool N]`, `agentcage-build-images --dry-run`.",
    ];
    expect(page(fine.join("\n"))).toEqual([]);
    expect(page("`agentcage start`")).toEqual(['docs/probe.md: "agentcage start" is no subcommand (in: agentcage start)']);
    expect(page("`agentcage keys make --tenant ci`")).toEqual(['docs/probe.md: "agentcage keys make" is no subcommand (in: agentcage keys make --tenant ci)']);
    expect(page("`agentcage run claude hi --pool 2`")).toEqual(['docs/probe.md: --pool is no option of "run" (in: agentcage run claude hi --pool 2)']);
    expect(page("```sh\nnode dist/cli/main.js serve \\\n  --stand-in --replicas 2\n```")).toEqual([
      'docs/probe.md: --replicas is no option of "serve" (in: node dist/cli/main.js serve --stand-in --replicas 2)',
    ]);
    expect(page("`agentcage tenants set NAME --max-queue N`")).toEqual([
      'docs/probe.md: --max-queue is no option of "tenants set" (in: agentcage tenants set NAME --max-queue N)',
    ]);
  });
});
