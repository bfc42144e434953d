// agentcage's own images, built from the files this package ships: the agent image (images/agent,
// the pinned claude and codex CLIs), the stand-in model's image (images/stand-in plus the compiled
// stand-in server) and the orchestrator's (images/orchestrator: the package itself, which
// startEgressGateway and compose run). Invariant: the same files and environment give the same
// requests, in the repository and in an installed package alike; the one command behind
// `agentcage-build-images` and scripts/build-image.ts is `buildImagesCommand`.

import { existsSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_CA_NAME, buildCaCertsFile } from "./build-ca.js";
import { buildImage, imageEngineOf, type BuildImageResult, type ImageBuildRequest, type ImageEngineConnection } from "./build-image.js";
import { compare, inputsHash, readContext } from "./image-context.js";
import { ORCHESTRATOR_IMAGE, orchestratorImageRequest, withOrchestratorContext } from "./orchestrator-image.js";
import { AGENT_IMAGE } from "../runner/index.js";
import { AGENT_CLIS, adapterFor } from "../agents/index.js";
import { STAND_IN_IMAGE } from "../stand-in/index.js";

/** The images agentcage builds, in the order they are built when none is named. */
export const AGENT_IMAGE_NAMES = ["agent", "stand-in", "orchestrator"] as const;
export type AgentImageName = (typeof AGENT_IMAGE_NAMES)[number];
/** The build args images/agent/Dockerfile takes from images/agent/clis.env: each adapter's pin. */
export const CLI_BUILD_ARGS: readonly string[] = AGENT_CLIS.flatMap((cli) => [adapterFor(cli).pin.version, adapterFor(cli).pin.integrity]);
/** Each image's tag when the caller names none. */
export const DEFAULT_IMAGE_TAGS: Readonly<Record<AgentImageName, string>> = {
  agent: AGENT_IMAGE,
  "stand-in": STAND_IN_IMAGE,
  orchestrator: ORCHESTRATOR_IMAGE,
};
/** Where the compiled stand-in server sits below the package root (tsconfig.tools.json's output). */
const STAND_IN_COMPILED = path.join("dist-tools", "test", "stand-in");
const PROGRAM = "agentcage-build-images";
/** An image reference as the engine takes it for a tag: [host.name[:port]/]name[:tag], the name lower-case, no spaces. */
const IMAGE_REFERENCE = /^(?:[A-Za-z0-9-]+(?:(?:\.[A-Za-z0-9-]+)+(?::[0-9]+)?|:[0-9]+)\/)?[a-z0-9][a-z0-9._\-/]*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?$/;

/** Parses a shell-sourceable NAME=value file (comments and blank lines allowed, nothing else). */
export function parseClisEnv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`line ${index + 1} of clis.env (${JSON.stringify(line)}) is not NAME=value; write one NAME=value a line`);
    const [, name, rawValue] = match as unknown as [string, string, string];
    const quoted = /^(["'])(.*)\1$/.exec(rawValue);
    const value = quoted ? (quoted[2] as string) : rawValue;
    if (/[\s$`"'\\;&|<>()]/.test(value)) {
      throw new Error(
        `${name} in clis.env has the value ${JSON.stringify(rawValue)}, which a shell would not read literally; write it without spaces or shell characters`,
      );
    }
    values[name] = value;
  }
  return values;
}

/** The agent image's build args: the pinned CLIs, plus BASE_IMAGE and EXTRA_PACKAGES when the environment sets them. */
export function agentBuildArgs(clis: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv): Record<string, string> {
  const args: Record<string, string> = {};
  for (const name of CLI_BUILD_ARGS) {
    const value = clis[name];
    if (value === undefined || value === "") throw new Error(`clis.env does not set ${name}; add it as one ${name}=value line`);
    args[name] = value;
  }
  if (env["AGENTCAGE_BASE_IMAGE"]) args["BASE_IMAGE"] = env["AGENTCAGE_BASE_IMAGE"];
  if (env["AGENTCAGE_AGENT_PACKAGES"]) args["EXTRA_PACKAGES"] = env["AGENTCAGE_AGENT_PACKAGES"];
  return args;
}

/** The directory holding images/agent: this package's own, found upward from this file. */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "images", "agent", "Dockerfile")) && existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`no directory above ${from} holds images/agent/Dockerfile; agentcage's images are missing from this installation`);
  }
}

/**
 * What building the agent or the stand-in image is given, read from the package at `root`
 * (`tag` default: its DEFAULT_IMAGE_TAGS entry). The orchestrator's is orchestratorImageRequest's.
 */
export async function agentImageRequest(
  image: Exclude<AgentImageName, "orchestrator">,
  root: string,
  env: NodeJS.ProcessEnv,
  tag?: string,
): Promise<ImageBuildRequest> {
  if (image === "agent") {
    const contextDir = path.join(root, "images", "agent");
    const clis = parseClisEnv(await readFile(path.join(contextDir, "clis.env"), "utf8"));
    const ca = buildCaCertsFile(env);
    return {
      tag: tag ?? AGENT_IMAGE,
      contextDir,
      buildArgs: agentBuildArgs(clis, env),
      extraFiles: ca === undefined ? [] : [{ name: BUILD_CA_NAME, from: ca }],
    };
  }
  if (image !== "stand-in")
    throw new Error(`agentImageRequest takes "agent" or "stand-in", not ${JSON.stringify(image)}; the orchestrator's request is orchestratorImageRequest's`);
  const compiled = path.join(root, STAND_IN_COMPILED);
  const present = await lstat(path.join(compiled, "main.js")).then(
    () => true,
    () => false,
  );
  if (!present) throw new Error(`${compiled}/main.js is missing; in the repository, compile it first (npm run build:tools)`);
  const scripts = (await readdir(compiled)).filter((name) => name.endsWith(".js")).sort(compare);
  return {
    tag: tag ?? STAND_IN_IMAGE,
    contextDir: path.join(root, "images", "stand-in"),
    buildArgs: env["AGENTCAGE_BASE_IMAGE"] ? { BASE_IMAGE: env["AGENTCAGE_BASE_IMAGE"] } : {},
    extraFiles: scripts.map((name) => ({ name: `app/test/stand-in/${name}`, from: path.join(compiled, name) })),
  };
}

/** Calls `use` with what building `image` from `root` is given, and the directory its files come from (the orchestrator's: the root). */
async function withImageRequest<T>(
  image: AgentImageName,
  root: string,
  env: NodeJS.ProcessEnv,
  tag: string | undefined,
  use: (request: ImageBuildRequest, source: string) => Promise<T>,
): Promise<T> {
  if (image === "orchestrator") return withOrchestratorContext(await orchestratorImageRequest(root, env, tag), (request) => use(request, root));
  const request = await agentImageRequest(image, root, env, tag);
  return use(request, request.contextDir);
}

/** What one image's build would be given, as `agentcage-build-images --dry-run` prints it. */
export type ImageInputs = {
  readonly tag: string;
  /** The inputs digest its `agentcage.inputs` label carries once built from these files. */
  readonly hash: string;
  /** The directory its files come from. */
  readonly source: string;
  /** The names of the files in its build context, sorted. */
  readonly files: readonly string[];
};

/** The tag, inputs digest and context of one of agentcage's images built from `root` now; contacts no engine. */
export async function agentImageInputs(
  image: AgentImageName,
  root: string = packageRoot(),
  env: NodeJS.ProcessEnv = process.env,
  tag?: string,
): Promise<ImageInputs> {
  return withImageRequest(image, root, env, tag, async (request, source) => {
    const files = await readContext(request.contextDir, request.extraFiles);
    const names = files.map((file) => file.name).sort(compare);
    return { tag: request.tag, hash: inputsHash(files, request.buildArgs, request.dockerfile), source, files: names };
  });
}

export type BuildAgentImagesOptions = ImageEngineConnection & {
  /** Which images; default: all of AGENT_IMAGE_NAMES, in that order (the agent, the stand-in, the orchestrator). */
  readonly images?: readonly AgentImageName[];
  /** The tag to build an image as; default: its DEFAULT_IMAGE_TAGS entry (what the library runs when told no other image). */
  readonly tags?: Readonly<Partial<Record<AgentImageName, string>>>;
  /** The directory holding images/ and the compiled package; default: this package's own. */
  readonly root?: string;
  /** Read for AGENTCAGE_BASE_IMAGE, AGENTCAGE_AGENT_PACKAGES, AGENTCAGE_BUILD_CA_CERTS, NODE_EXTRA_CA_CERTS; default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the builds' progress lines go; default: process.stderr. */
  readonly output?: NodeJS.WritableStream;
};

/** Refuses, naming the option, an image that is not agentcage's or a tag the engine would not take. */
function checkImages(images: readonly string[], tags: Readonly<Record<string, unknown>>): void {
  const known = (name: string): boolean => (AGENT_IMAGE_NAMES as readonly string[]).includes(name);
  const listed = AGENT_IMAGE_NAMES.map((n) => JSON.stringify(n)).join(", ");
  for (const image of images) {
    if (!known(image)) throw new Error(`image ${JSON.stringify(image)} is not one of agentcage's; write ${listed}`);
  }
  for (const [image, tag] of Object.entries(tags)) {
    if (!known(image)) throw new Error(`tags names ${JSON.stringify(image)}, which is not one of agentcage's images; write ${listed}`);
    if (typeof tag !== "string" || tag.length > 255 || !IMAGE_REFERENCE.test(tag)) {
      throw new Error(
        `tags.${image} (${JSON.stringify(tag)}) is not an image reference; write one such as ${JSON.stringify(DEFAULT_IMAGE_TAGS[image as AgentImageName])}`,
      );
    }
  }
}

/** Builds agentcage's images from this package, each only when its inputs changed; one result per image, in order. */
export async function buildAgentImages(options: BuildAgentImagesOptions = {}): Promise<BuildImageResult[]> {
  const root = options.root ?? packageRoot();
  const env = options.env ?? process.env;
  const images = options.images ?? AGENT_IMAGE_NAMES;
  const tags = options.tags ?? {};
  checkImages(images, tags);
  const engine = imageEngineOf("buildAgentImages", options);
  const results: BuildImageResult[] = [];
  for (const image of images) {
    results.push(
      await withImageRequest(image, root, env, tags[image], (request) =>
        buildImage({ ...request, engine, ...(options.output === undefined ? {} : { output: options.output }) }),
      ),
    );
  }
  return results;
}

const USAGE = `usage: ${PROGRAM} [--dry-run] [${AGENT_IMAGE_NAMES.join("] [")}]
Builds agentcage's images from this package through the Engine API (DOCKER_HOST, else the local
socket); with no name, all three, in this order:
  agent          ${AGENT_IMAGE}: the pinned claude and codex CLIs
  stand-in       ${STAND_IN_IMAGE}: the stand-in model server
  orchestrator   ${ORCHESTRATOR_IMAGE}: this package on Node, which startEgressGateway runs
                 as the egress proxy and compose.yaml as the service
An image whose inputs are unchanged is not built again.
  --dry-run   print each image's tag, inputs digest and context files; contact no engine
Environment: AGENTCAGE_BASE_IMAGE (default debian:bookworm-slim), AGENTCAGE_AGENT_PACKAGES
(Debian packages added to the agent image), AGENTCAGE_BUILD_CA_CERTS (the CA bundle the agent and
orchestrator builds' npm trusts; empty for none; default NODE_EXTRA_CA_CERTS, else the host's bundle).
Exit status: 0 built or reused, 1 a build failed, 2 wrong arguments.
`;

export type BuildImagesCommandOptions = Omit<BuildAgentImagesOptions, "images" | "output"> & {
  /** Default: process.stdout. */
  readonly stdout?: NodeJS.WritableStream;
  /** Progress and messages; default: process.stderr. */
  readonly stderr?: NodeJS.WritableStream;
};

/** `agentcage-build-images [--dry-run] [agent] [stand-in] [orchestrator]`: resolves with the exit status. */
export async function buildImagesCommand(args: readonly string[], options: BuildImagesCommandOptions = {}): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  if (args.includes("--help") || args.includes("-h")) {
    stdout.write(USAGE);
    return 0;
  }
  const dryRun = args.includes("--dry-run");
  const names = args.filter((arg) => arg !== "--dry-run");
  const wrong = names.find((name) => !AGENT_IMAGE_NAMES.includes(name as AgentImageName));
  if (wrong !== undefined) {
    stderr.write(`${PROGRAM}: ${JSON.stringify(wrong)} is not an image name or option\n${USAGE}`);
    return 2;
  }
  const images = names.length === 0 ? AGENT_IMAGE_NAMES : [...new Set(names as AgentImageName[])];
  try {
    const root = options.root ?? packageRoot();
    const env = options.env ?? process.env;
    const tags = options.tags ?? {};
    checkImages(images, tags);
    if (dryRun) {
      for (const image of images) {
        const inputs = await agentImageInputs(image, root, env, tags[image]);
        stdout.write(`${inputs.tag} inputs ${inputs.hash} from ${inputs.source}: ${inputs.files.join(" ")}\n`);
      }
      return 0;
    }
    const engine = imageEngineOf("buildImagesCommand", options);
    for (const image of images) {
      const [result] = await buildAgentImages({ engine, images: [image], tags, root, env, output: stderr });
      if (result !== undefined) stderr.write(`${PROGRAM}: ${result.built ? "built" : "reused"} ${result.tag} in ${result.seconds} s\n`);
    }
    return 0;
  } catch (error) {
    stderr.write(`${PROGRAM}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
