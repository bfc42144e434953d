// The repository's way to build agentcage's images through the Engine API, as provisioning does.
// agent and stand-in: the logic lives in src/testing (buildImagesCommand), shared with the
// package's `agentcage-build-images`. orchestrator (images/orchestrator, which compose.yaml runs)
// is the repository's own: its context is the repository's root narrowed by .dockerignore, which
// this file reads, so that it sends what `docker compose build` sends. Invariant: the same files
// and environment give the same inputs digest, so an unchanged image is never built again.
// CLI: `node dist-tools/scripts/build-image.js [--dry-run] [agent] [stand-in] [orchestrator]`
// (after `npm run build:tools`; orchestrator also needs `npm run build`).

import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Docker from "dockerode";
import {
  BUILD_CA_NAME,
  buildCaCertsFile,
  buildImage,
  buildImagesCommand,
  inputsHash,
  readContext,
  type BuildImageResult,
  type DockerImages,
  type ExtraFile,
  type ImageBuildRequest,
} from "../src/testing/index.js";

export type { BuildImageOptions, BuildImageResult, BuildProgress, ContextFile, ExtraFile } from "../src/testing/index.js";
export {
  AGENT_IMAGE,
  agentBuildArgs,
  BUILD_CA_NAME,
  buildCaCertsFile,
  buildImage,
  CLI_BUILD_ARGS,
  HOST_CA_BUNDLE,
  INPUTS_LABEL,
  inputsHash,
  packContext,
  parseClisEnv,
  readBuildProgress,
  readContext,
  STAND_IN_IMAGE,
} from "../src/testing/index.js";

/** Whether this module is the program node was started with (not imported by a test). */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

/** The orchestrator's image, as compose.yaml names it. */
export const ORCHESTRATOR_IMAGE = "agentcage-orchestrator:latest";
/** Its Dockerfile, relative to the repository's root (the build context). */
export const ORCHESTRATOR_DOCKERFILE = "images/orchestrator/Dockerfile";
/** The repository's root: the directory above this file (compiled into dist-tools/scripts/ or not) that holds the orchestrator's Dockerfile. */
const REPO_ROOT = ((): string => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ORCHESTRATOR_DOCKERFILE))) return dir;
  }
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
})();

/** One line of a .dockerignore: a pattern that excludes, or (after `!`) includes again. */
export type IgnoreRule = {
  readonly exclude: boolean;
  readonly pattern: string;
  readonly regex: RegExp;
};

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
    if (!IGNORE_PATTERN.test(pattern) || segments.some((segment) => segment === "" || segment === "." || segment === "..") || segments.some((segment) => segment.includes("**") && segment !== "**")) {
      throw new Error(`line ${index + 1} of .dockerignore (${JSON.stringify(line)}) is not a form scripts/build-image.ts reads; write a relative path with * or ** wildcards, optionally after !`);
    }
    rules.push({ exclude, pattern, regex: ignoreRegex(segments) });
  }
  return rules;
}

function ignoreRegex(segments: readonly string[]): RegExp {
  const escape = (text: string): string => text.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  let source = "";
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === "**") source += last ? ".*" : "(?:[^/]+/)*";
    else source += segment.split("*").map(escape).join("[^/]*") + (last ? "" : "/");
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
export async function orchestratorContextNames(root: string = REPO_ROOT): Promise<string[]> {
  const rules = parseDockerignore(await readFile(path.join(root, ".dockerignore"), "utf8"));
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
        if (!entry.isFile()) throw new Error(`${path.join(root, name)} is in the orchestrator's build context but is not a regular file; the context holds only those`);
        names.push(name);
      }
    }
  };
  await walk("");
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * What building the orchestrator image is given: every file of its context as an extra file (named
 * from the root, as in `docker compose build`), BASE_IMAGE when AGENTCAGE_BASE_IMAGE is set, and
 * the CA certificates the build's npm trusts (as for the agent image) unless the context has its own.
 */
export async function orchestratorImageRequest(root: string, env: NodeJS.ProcessEnv): Promise<Omit<ImageBuildRequest, "contextDir">> {
  const names = await orchestratorContextNames(root);
  for (const needed of [ORCHESTRATOR_DOCKERFILE, "package-lock.json", "dist/cli/main.js", "dist-tools/test/stand-in/main.js"]) {
    if (!names.includes(needed)) {
      throw new Error(`${path.join(root, needed)} is missing from the orchestrator's build context; run npm run build and npm run build:tools first`);
    }
  }
  const extraFiles: ExtraFile[] = names.map((name) => ({ name, from: path.join(root, name) }));
  const ca = buildCaCertsFile(env);
  const caName = `images/orchestrator/${BUILD_CA_NAME}`;
  if (ca !== undefined && !names.includes(caName)) extraFiles.push({ name: caName, from: ca });
  return {
    tag: ORCHESTRATOR_IMAGE,
    dockerfile: ORCHESTRATOR_DOCKERFILE,
    buildArgs: env["AGENTCAGE_BASE_IMAGE"] ? { BASE_IMAGE: env["AGENTCAGE_BASE_IMAGE"] } : {},
    extraFiles,
  };
}

/** Calls `use` with the request's context in a directory of its own (empty: every file is an extra one), removed after. */
async function withOrchestratorContext<T>(root: string, env: NodeJS.ProcessEnv, use: (request: ImageBuildRequest) => Promise<T>): Promise<T> {
  const request = await orchestratorImageRequest(root, env);
  const contextDir = await mkdtemp(path.join(tmpdir(), "agentcage-orchestrator-context-"));
  try {
    return await use({ ...request, contextDir });
  } finally {
    await rm(contextDir, { recursive: true, force: true });
  }
}

/** The digest the orchestrator image's `agentcage.inputs` label carries when built from `root` now. */
export async function orchestratorInputsHash(root: string = REPO_ROOT, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return withOrchestratorContext(root, env, async (request) =>
    inputsHash(await readContext(request.contextDir, request.extraFiles), request.buildArgs, request.dockerfile));
}

/** Builds agentcage-orchestrator:latest unless the image of that tag carries the same inputs digest. */
export async function buildOrchestratorImage(docker: DockerImages, options: { root?: string; env?: NodeJS.ProcessEnv; output?: NodeJS.WritableStream } = {}): Promise<BuildImageResult> {
  return withOrchestratorContext(options.root ?? REPO_ROOT, options.env ?? process.env, (request) =>
    buildImage({ ...request, docker, ...(options.output === undefined ? {} : { output: options.output }) }));
}

/** `build-image.js [--dry-run] [agent] [stand-in] [orchestrator]`: resolves with the exit status. */
async function main(args: readonly string[]): Promise<number> {
  const docker = new Docker();
  const dryRun = args.includes("--dry-run");
  const others = args.filter((arg) => arg !== "orchestrator");
  if (!args.includes("orchestrator")) {
    const code = await buildImagesCommand(args, { docker });
    if (args.includes("--help") || args.includes("-h")) process.stdout.write("  orchestrator   also: agentcage-orchestrator:latest (images/orchestrator), from this repository\n");
    return code;
  }
  if (others.some((arg) => arg !== "--dry-run")) {
    const code = await buildImagesCommand(others, { docker });
    if (code !== 0) return code;
  }
  try {
    if (dryRun) {
      process.stdout.write(`${ORCHESTRATOR_IMAGE} inputs ${await orchestratorInputsHash()} from ${REPO_ROOT}: ${(await orchestratorContextNames()).join(" ")}\n`);
      return 0;
    }
    const result = await buildOrchestratorImage(docker);
    process.stderr.write(`build-image: ${result.built ? "built" : "reused"} ${result.tag} in ${result.seconds} s\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`build-image: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (isEntry()) process.exitCode = await main(process.argv.slice(2));
