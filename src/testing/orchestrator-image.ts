// The orchestrator image's build context (images/orchestrator, which the egress proxy and compose
// run), cut from a package root by that root's .dockerignore: the repository's, or an installed
// package's, which ships the same file. Invariant: the same files give the same context and the
// same inputs digest wherever the root is (dist/ enters without execute bits, as tsc writes it,
// whatever npm install did); npm never packs a root package-lock.json, so an installed
// package's lock (SHIPPED_LOCKFILE, written by prepack) enters as package-lock.json.

import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_EGRESS_IMAGE } from "../gateway/index.js";
import { buildCaCertsFile, BUILD_CA_NAME } from "./build-ca.js";
import type { ImageBuildRequest } from "./build-image.js";
import { compare, type ExtraFile } from "./image-context.js";

/** The orchestrator's image, as compose.yaml and startEgressGateway name it. */
export const ORCHESTRATOR_IMAGE = DEFAULT_EGRESS_IMAGE;
/** Its Dockerfile, relative to the package root (the build context). */
export const ORCHESTRATOR_DOCKERFILE = "images/orchestrator/Dockerfile";
/** Where a packed package carries the repository's package-lock.json (prepack copies it there); .dockerignore leaves this path out. */
export const SHIPPED_LOCKFILE = "dist/package-lock.json";
/** What the Dockerfile needs that a build (npm run build, build:tools) or an install may lack. */
const NEEDED = [ORCHESTRATOR_DOCKERFILE, "package-lock.json", "dist/cli/main.js", "dist-tools/test/stand-in/main.js"];

/** One line of a .dockerignore: a pattern that excludes, or (after `!`) includes again. */
export type IgnoreRule = {
  readonly exclude: boolean;
  readonly pattern: string;
  readonly regex: RegExp;
};

/** The orchestrator build minus its context directory, which holds nothing: every file is an extra one, named from the root. */
export type OrchestratorBuildRequest = Omit<ImageBuildRequest, "contextDir">;

const IGNORE_PATTERN = /^[A-Za-z0-9._\-/*]+$/;

/**
 * Reads .dockerignore lines of the form this repository writes: `#` comments, blank lines, and
 * relative paths with `*` (within a name) and `**` (any depth), each optionally after `!`.
 * Anything else (`?`, `[...]`, `..`, a leading or trailing `/`) is refused rather than misread.
 */
export function parseDockerignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const exclude = !line.startsWith("!");
    const pattern = exclude ? line : line.slice(1);
    const segments = pattern.split("/");
    if (
      !IGNORE_PATTERN.test(pattern) ||
      segments.some((segment) => segment === "" || segment === "." || segment === "..") ||
      segments.some((segment) => segment.includes("**") && segment !== "**")
    ) {
      throw new Error(
        `line ${index + 1} of .dockerignore (${JSON.stringify(line)}) is not a form agentcage's image builder reads; write a relative path with * or ** wildcards, optionally after !`,
      );
    }
    rules.push({ exclude, pattern, regex: ignoreRegex(segments) });
  }
  return rules;
}

function ignoreRegex(segments: readonly string[]): RegExp {
  const escapeRegExp = (text: string): string => text.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  let source = "";
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === "**") source += last ? ".*" : "(?:[^/]+/)*";
    else source += segment.split("*").map(escapeRegExp).join("[^/]*") + (last ? "" : "/");
  }
  return new RegExp(`^${source}$`);
}

/** Whether a path (relative, `/`-separated) goes into the context: the last rule matching it or a directory above it decides, as Docker's does. */
export function inContext(rules: readonly IgnoreRule[], name: string): boolean {
  const segments = name.split("/");
  const candidates = segments.map((_, index) => segments.slice(0, index + 1).join("/"));
  let included = true;
  for (const rule of rules) if (candidates.some((candidate) => rule.regex.test(candidate))) included = !rule.exclude;
  return included;
}

/** The files of `root` its .dockerignore lets into the orchestrator's build context, sorted. Links are refused. */
export async function orchestratorContextNames(root: string): Promise<string[]> {
  const ignoreFile = path.join(root, ".dockerignore");
  if (!existsSync(ignoreFile))
    throw new Error(`${ignoreFile} is missing; it decides the orchestrator's build context (reinstall agentcage, or in the repository restore it)`);
  const rules = parseDockerignore(await readFile(ignoreFile, "utf8"));
  // Docker's walk: a directory left out is entered only when an including rule's pattern starts
  // with its path (`!dist/cli/*.js` enters dist/ and dist/cli/; `!dist/**/*.js` never enters dist/cli/).
  const mayHoldIncluded = (dir: string): boolean => inContext(rules, dir) || rules.some((rule) => !rule.exclude && `${rule.pattern}/`.startsWith(`${dir}/`));
  const names: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
      const name = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (mayHoldIncluded(name)) await walk(name);
      } else if (inContext(rules, name)) {
        if (!entry.isFile())
          throw new Error(`${path.join(root, name)} is in the orchestrator's build context but is not a regular file; the context holds only those`);
        names.push(name);
      }
    }
  };
  await walk("");
  return names.sort(compare);
}

/**
 * What building the orchestrator image is given: every file of its context as an extra file (named
 * from the root, as in `docker compose build`), the shipped lock as package-lock.json when the root
 * has none of its own, BASE_IMAGE when AGENTCAGE_BASE_IMAGE is set, and the CA certificates the
 * build's npm trusts (as for the agent image) unless the context has its own.
 */
export async function orchestratorImageRequest(root: string, env: NodeJS.ProcessEnv, tag: string = ORCHESTRATOR_IMAGE): Promise<OrchestratorBuildRequest> {
  const names = await orchestratorContextNames(root);
  // tsc writes dist/ without execute bits; npm install adds one to the package's bin targets
  // (dist/cli/main.js), which the image runs with node: sent as built, so both give one digest.
  const extraFiles: ExtraFile[] = names.map((name) => ({ name, from: path.join(root, name), ...(name.startsWith("dist/") ? { executable: false } : {}) }));
  if (!names.includes("package-lock.json") && existsSync(path.join(root, SHIPPED_LOCKFILE))) {
    extraFiles.push({ name: "package-lock.json", from: path.join(root, SHIPPED_LOCKFILE) });
  }
  const sent = extraFiles.map((file) => file.name);
  for (const needed of NEEDED) {
    if (!sent.includes(needed)) {
      throw new Error(
        `${path.join(root, needed)} is missing from the orchestrator's build context; in the repository run npm run build and npm run build:tools first, else reinstall agentcage`,
      );
    }
  }
  const ca = buildCaCertsFile(env);
  const caName = `images/orchestrator/${BUILD_CA_NAME}`;
  if (ca !== undefined && !sent.includes(caName)) extraFiles.push({ name: caName, from: ca });
  return {
    tag,
    dockerfile: ORCHESTRATOR_DOCKERFILE,
    buildArgs: env["AGENTCAGE_BASE_IMAGE"] ? { BASE_IMAGE: env["AGENTCAGE_BASE_IMAGE"] } : {},
    extraFiles,
  };
}

/** Calls `use` with the request given a context directory of its own (empty: every file is an extra one), removed after. */
export async function withOrchestratorContext<T>(request: OrchestratorBuildRequest, use: (request: ImageBuildRequest) => Promise<T>): Promise<T> {
  const contextDir = await mkdtemp(path.join(tmpdir(), "agentcage-orchestrator-context-"));
  try {
    return await use({ ...request, contextDir });
  } finally {
    await rm(contextDir, { recursive: true, force: true });
  }
}
