// agentcage's own images, built from the files this package ships: the agent image (images/agent,
// the pinned claude and codex CLIs) and the stand-in model's image (images/stand-in plus the
// compiled stand-in server). Invariant: the same files and environment give the same requests,
// in the repository and in an installed package alike; the one command behind
// `agentcage-build-images` and scripts/build-image.ts is `buildImagesCommand`.

import { existsSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connectDocker } from "../engine/index.js";
import { buildImage, type BuildImageResult, type DockerImages, type ImageBuildRequest } from "./build-image.js";
import { compare, inputsHash, readContext } from "./image-context.js";
import { AGENT_IMAGE, STAND_IN_IMAGE } from "./stand-in-model.js";

/** The images agentcage builds, in the order they are built when none is named. */
export const AGENT_IMAGE_NAMES = ["agent", "stand-in"] as const;
export type AgentImageName = (typeof AGENT_IMAGE_NAMES)[number];
/** The build args images/agent/Dockerfile takes from images/agent/clis.env. */
export const CLI_BUILD_ARGS = ["CLAUDE_VERSION", "CLAUDE_INTEGRITY", "CODEX_VERSION", "CODEX_INTEGRITY"] as const;
/** Where the agent Dockerfile's fetch stage looks for a TLS-inspecting proxy's CA certificates. */
export const BUILD_CA_NAME = "build-ca.crt";
/** Debian's bundle of the CAs this host trusts, including any an administrator added. */
export const HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
/** Where the compiled stand-in server sits below the package root (tsconfig.tools.json's output). */
const STAND_IN_COMPILED = path.join("dist-tools", "test", "stand-in");
const PROGRAM = "agentcage-build-images";

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
      throw new Error(`${name} in clis.env has the value ${JSON.stringify(rawValue)}, which a shell would not read literally; write it without spaces or shell characters`);
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

/**
 * The CA certificates the agent build's npm must trust, so a TLS-inspecting proxy the host trusts
 * works inside the build too: AGENTCAGE_BUILD_CA_CERTS (empty: none), else NODE_EXTRA_CA_CERTS,
 * else the host's own bundle when there is one. The tarballs' sha512 is checked whatever the CAs.
 */
export function buildCaCertsFile(env: NodeJS.ProcessEnv, hostBundleExists: boolean = existsSync(HOST_CA_BUNDLE)): string | undefined {
  const chosen = env["AGENTCAGE_BUILD_CA_CERTS"] ?? env["NODE_EXTRA_CA_CERTS"] ?? (hostBundleExists ? HOST_CA_BUNDLE : undefined);
  return chosen === undefined || chosen === "" ? undefined : chosen;
}

/** The directory holding images/agent: this package's own, found upward from this file. */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "images", "agent", "Dockerfile")) && existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no directory above ${from} holds images/agent/Dockerfile; agentcage's images are missing from this installation`);
  }
}

/** What building one of agentcage's images is given, read from the package at `root`. */
export async function agentImageRequest(image: AgentImageName, root: string, env: NodeJS.ProcessEnv): Promise<ImageBuildRequest> {
  if (image === "agent") {
    const contextDir = path.join(root, "images", "agent");
    const clis = parseClisEnv(await readFile(path.join(contextDir, "clis.env"), "utf8"));
    const ca = buildCaCertsFile(env);
    return {
      tag: AGENT_IMAGE,
      contextDir,
      buildArgs: agentBuildArgs(clis, env),
      extraFiles: ca === undefined ? [] : [{ name: BUILD_CA_NAME, from: ca }],
    };
  }
  const compiled = path.join(root, STAND_IN_COMPILED);
  const present = await lstat(path.join(compiled, "main.js")).then(
    () => true,
    () => false,
  );
  if (!present) throw new Error(`${compiled}/main.js is missing; in the repository, compile it first (npm run build:tools)`);
  const scripts = (await readdir(compiled)).filter((name) => name.endsWith(".js")).sort(compare);
  return {
    tag: STAND_IN_IMAGE,
    contextDir: path.join(root, "images", "stand-in"),
    buildArgs: env["AGENTCAGE_BASE_IMAGE"] ? { BASE_IMAGE: env["AGENTCAGE_BASE_IMAGE"] } : {},
    extraFiles: scripts.map((name) => ({ name: `app/test/stand-in/${name}`, from: path.join(compiled, name) })),
  };
}

export type BuildAgentImagesOptions = {
  /** The Docker connection to build through, e.g. `new Docker()` from dockerode (DOCKER_HOST, else the local socket). */
  readonly docker: DockerImages;
  /** Which images; default: both, the agent first. */
  readonly images?: readonly AgentImageName[];
  /** The directory holding images/ and the compiled stand-in; default: this package's own. */
  readonly root?: string;
  /** Read for AGENTCAGE_BASE_IMAGE, AGENTCAGE_AGENT_PACKAGES, AGENTCAGE_BUILD_CA_CERTS, NODE_EXTRA_CA_CERTS; default: process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the builds' progress lines go; default: process.stderr. */
  readonly output?: NodeJS.WritableStream;
};

/** Builds agentcage's images from this package, each only when its inputs changed; one result per image, in order. */
export async function buildAgentImages(options: BuildAgentImagesOptions): Promise<BuildImageResult[]> {
  const root = options.root ?? packageRoot();
  const env = options.env ?? process.env;
  const results: BuildImageResult[] = [];
  for (const image of options.images ?? AGENT_IMAGE_NAMES) {
    if (!AGENT_IMAGE_NAMES.includes(image)) throw new Error(`image ${JSON.stringify(image)} is not one of agentcage's; write ${AGENT_IMAGE_NAMES.map((n) => JSON.stringify(n)).join(" or ")}`);
    const request = await agentImageRequest(image, root, env);
    results.push(await buildImage({ ...request, docker: options.docker, ...(options.output === undefined ? {} : { output: options.output }) }));
  }
  return results;
}

const USAGE = `usage: ${PROGRAM} [--dry-run] [${AGENT_IMAGE_NAMES.join("] [")}]
Builds ${AGENT_IMAGE} (the pinned claude and codex CLIs) and ${STAND_IN_IMAGE} (the stand-in model
server) from this package through the Engine API (DOCKER_HOST, else the local socket); with no
name, both. An image whose inputs are unchanged is not built again.
  --dry-run   print each image's tag, inputs digest and context files; contact no engine
Environment: AGENTCAGE_BASE_IMAGE (default debian:bookworm-slim), AGENTCAGE_AGENT_PACKAGES
(Debian packages added to the agent image), AGENTCAGE_BUILD_CA_CERTS (the CA bundle the agent
build's npm trusts; empty for none; default NODE_EXTRA_CA_CERTS, else the host's bundle).
Exit status: 0 built or reused, 1 a build failed, 2 wrong arguments.
`;

export type BuildImagesCommandOptions = Omit<BuildAgentImagesOptions, "images" | "output" | "docker"> & {
  /** Default: Docker from the environment (DOCKER_HOST, else the local socket). */
  readonly docker?: DockerImages;
  /** Default: process.stdout. */
  readonly stdout?: NodeJS.WritableStream;
  /** Progress and messages; default: process.stderr. */
  readonly stderr?: NodeJS.WritableStream;
};

/** `agentcage-build-images [--dry-run] [agent] [stand-in]`: resolves with the exit status. */
export async function buildImagesCommand(args: readonly string[], options: BuildImagesCommandOptions): Promise<number> {
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
    if (dryRun) {
      for (const image of images) {
        const request = await agentImageRequest(image, root, env);
        const files = await readContext(request.contextDir, request.extraFiles);
        const hash = inputsHash(files, request.buildArgs, request.dockerfile);
        stdout.write(`${request.tag} inputs ${hash} from ${request.contextDir}: ${files.map((file) => file.name).join(" ")}\n`);
      }
      return 0;
    }
    for (const image of images) {
      const [result] = await buildAgentImages({ docker: options.docker ?? connectDocker(), images: [image], root, env, output: stderr });
      if (result !== undefined) stderr.write(`${PROGRAM}: ${result.built ? "built" : "reused"} ${result.tag} in ${result.seconds} s\n`);
    }
    return 0;
  } catch (error) {
    stderr.write(`${PROGRAM}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
