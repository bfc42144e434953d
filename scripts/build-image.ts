// Builds agentcage's images (agent, stand-in) through the Engine API, skipping a build whose inputs
// an image of that tag already carries. Invariant: the `agentcage.inputs` label is a digest of
// exactly what is sent (every context file's name, executable bit and bytes, the Dockerfile name,
// the build args); the tar sent is made from the same entries, with modes, owners and times fixed.
// CLI: `node dist-tools/scripts/build-image.js agent|stand-in` (after `npm run build:tools`).

import { createHash } from "node:crypto";
import { readdir, readFile, stat, lstat } from "node:fs/promises";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Docker from "dockerode";
import tar, { type Pack } from "tar-stream";
import { jsonLines } from "../src/plan/index.js";
import { engineMessage, engineStatus } from "../src/engine/index.js";

/** The image label holding the digest of a build's inputs; equal digest, nothing to build. */
export const INPUTS_LABEL = "agentcage.inputs";
import { AGENT_IMAGE, STAND_IN_IMAGE } from "../src/testing/index.js";
export { AGENT_IMAGE, STAND_IN_IMAGE };
/** The build args images/agent/Dockerfile takes from images/agent/clis.env. */
export const CLI_BUILD_ARGS = ["CLAUDE_VERSION", "CLAUDE_INTEGRITY", "CODEX_VERSION", "CODEX_INTEGRITY"] as const;
/** Where the agent Dockerfile's fetch stage looks for a TLS-inspecting proxy's CA certificates. */
export const BUILD_CA_NAME = "build-ca.crt";
/** Every entry of a build context gets this time, so the same files always make the same tar. */
const CONTEXT_MTIME = new Date(0);
/** Colour codes the legacy builder wraps a step's stderr in. */
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;
/** The legacy builder's own bookkeeping lines, which never say why a step failed. */
const BUILDER_CHATTER = /^(---> |Removing intermediate container |Running in )/;

export type ContextFile = {
  /** Path inside the build context: forward slashes, no leading "./". */
  readonly name: string;
  /** Any execute bit set: the one mode bit git keeps, so the only one that reaches the image (0755, else 0644). */
  readonly executable: boolean;
  readonly contents: Buffer;
};

/** A host file put into the build context under another name. */
export type ExtraFile = { readonly name: string; readonly from: string };

export type BuildImageOptions = {
  /** Default: `new Docker()`, which honours DOCKER_HOST. */
  readonly docker?: Docker;
  readonly tag: string;
  readonly contextDir: string;
  /** Path of the Dockerfile inside the context. Default: "Dockerfile". */
  readonly dockerfile?: string;
  readonly buildArgs: Readonly<Record<string, string>>;
  /** Files added to the context from elsewhere. Default: none. */
  readonly extraFiles?: readonly ExtraFile[];
  /** Where the build's progress lines go. Default: process.stderr. */
  readonly output?: NodeJS.WritableStream;
};

export type BuildImageResult = { readonly tag: string; readonly built: boolean; readonly seconds: number };

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

/** The digest the `agentcage.inputs` label carries. Length-prefixed fields, so no two inputs collide. */
export function inputsHash(files: readonly ContextFile[], buildArgs: Readonly<Record<string, string>>, dockerfile = "Dockerfile"): string {
  const hash = createHash("sha256");
  const field = (value: string | Buffer): void => {
    hash.update(`${Buffer.byteLength(value)}:`);
    hash.update(value);
  };
  field("agentcage.inputs v1");
  field(dockerfile);
  for (const file of [...files].sort((a, b) => compare(a.name, b.name))) {
    field("file");
    field(file.name);
    field(file.executable ? "755" : "644");
    field(file.contents);
  }
  for (const name of Object.keys(buildArgs).sort(compare)) {
    field("arg");
    field(name);
    field(buildArgs[name] as string);
  }
  return hash.digest("hex");
}

/** A tar of the context: parent directories first, then files by name; root-owned, fixed times. */
export function packContext(files: readonly ContextFile[]): Pack {
  const pack = tar.pack();
  const directories = new Set<string>();
  for (const file of files) {
    for (let dir = path.posix.dirname(file.name); dir !== "."; dir = path.posix.dirname(dir)) directories.add(dir);
  }
  const common = { uid: 0, gid: 0, mtime: CONTEXT_MTIME } as const;
  for (const dir of [...directories].sort(compare)) pack.entry({ ...common, name: `${dir}/`, type: "directory", mode: 0o755 });
  for (const file of [...files].sort((a, b) => compare(a.name, b.name))) {
    pack.entry({ ...common, name: file.name, type: "file", mode: file.executable ? 0o755 : 0o644, size: file.contents.length }, file.contents);
  }
  pack.finalize();
  return pack;
}

/** Reads a context directory (regular files only) plus extra files into context entries. */
export async function readContext(contextDir: string, extraFiles: readonly ExtraFile[] = []): Promise<ContextFile[]> {
  const files: ContextFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => compare(a.name, b.name))) {
      const full = path.join(dir, entry.name);
      const name = path.relative(contextDir, full).split(path.sep).join("/");
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(await contextFile(name, full));
      else throw new Error(`${full} is not a regular file or directory; a build context holds only those`);
    }
  };
  await walk(contextDir);
  const names = new Set(files.map((file) => file.name));
  for (const extra of extraFiles) {
    const name = path.posix.normalize(extra.name);
    if (name.startsWith("/") || name === "." || name.startsWith("../")) {
      throw new Error(`extra file name ${JSON.stringify(extra.name)} is not inside the build context; write a relative path such as "app/main.js"`);
    }
    if (names.has(name)) throw new Error(`extra file ${JSON.stringify(name)} is already in ${contextDir}; give it another name`);
    if (!(await stat(extra.from)).isFile()) throw new Error(`${extra.from} is not a regular file; only files can be added to a build context`);
    names.add(name);
    files.push(await contextFile(name, extra.from));
  }
  return files;
}

async function contextFile(name: string, from: string): Promise<ContextFile> {
  const info = await stat(from);
  return { name, executable: (info.mode & 0o111) !== 0, contents: await readFile(from) };
}

export type BuildProgress = {
  readonly imageId?: string;
  readonly error?: string;
  /** The last non-blank output line before the end (escape codes removed): usually why a step failed. */
  readonly lastLine?: string;
};

/** Reads the daemon's JSON-lines build stream: writes each progress line, returns the image id or the daemon's error. */
export async function readBuildProgress(source: AsyncIterable<Uint8Array>, write: (text: string) => void): Promise<BuildProgress> {
  let imageId: string | undefined;
  let error: string | undefined;
  let lastLine: string | undefined;
  const remember = (text: string): void => {
    const lines = text.replace(ANSI_ESCAPE, "").split("\n").map((l) => l.trim()).filter((l) => l !== "" && !BUILDER_CHATTER.test(l));
    if (lines.length > 0) lastLine = lines.at(-1);
  };
  for await (const line of jsonLines(source)) {
    if (line.kind === "noise") {
      write(`${line.text}\n`);
      remember(line.text);
      continue;
    }
    if (line.kind === "oversized") continue;
    const event = line.value;
    if (typeof event["stream"] === "string") {
      write(event["stream"]);
      remember(event["stream"]);
    }
    if (typeof event["status"] === "string") write(`${event["status"]}\n`);
    const detail = event["errorDetail"] as { message?: unknown } | undefined;
    if (typeof detail?.message === "string") error = detail.message;
    else if (typeof event["error"] === "string") error = event["error"];
    const aux = event["aux"] as { ID?: unknown } | undefined;
    if (typeof aux?.ID === "string") imageId = aux.ID;
  }
  return {
    ...(imageId === undefined ? {} : { imageId }),
    ...(error === undefined ? {} : { error }),
    ...(lastLine === undefined ? {} : { lastLine }),
  };
}

/** Builds `tag` from the context unless an image of that tag already carries the same inputs label. */
export async function buildImage(options: BuildImageOptions): Promise<BuildImageResult> {
  const started = performance.now();
  const seconds = (): number => Math.round((performance.now() - started) / 100) / 10;
  const docker = options.docker ?? new Docker();
  const dockerfile = options.dockerfile ?? "Dockerfile";
  const output = options.output ?? process.stderr;
  const files = await readContext(options.contextDir, options.extraFiles);
  if (!files.some((file) => file.name === dockerfile)) {
    throw new Error(`${path.join(options.contextDir, dockerfile)} does not exist; the build context needs its Dockerfile`);
  }
  const hash = inputsHash(files, options.buildArgs, dockerfile);

  const before = await labelsOf(docker, options.tag);
  if (before?.labels[INPUTS_LABEL] === hash) return { tag: options.tag, built: false, seconds: seconds() };

  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(packContext(files) as unknown as NodeJS.ReadableStream, {
      t: options.tag,
      dockerfile,
      buildargs: { ...options.buildArgs },
      labels: { [INPUTS_LABEL]: hash },
      rm: true,
      forcerm: true,
    });
  } catch (error) {
    throw new Error(`the engine refused to build ${options.tag}: ${engineMessage(error)}`);
  }
  const progress = await readBuildProgress(stream as AsyncIterable<Uint8Array>, (text) => output.write(text));
  if (progress.error !== undefined) {
    const why = progress.lastLine === undefined ? "" : ` (its last output: ${JSON.stringify(progress.lastLine)})`;
    throw new Error(`building ${options.tag} failed: ${progress.error.trim()}${why}`);
  }

  const after = await labelsOf(docker, options.tag);
  if (after?.labels[INPUTS_LABEL] !== hash) {
    throw new Error(`the engine reported no error, but ${options.tag} does not carry ${INPUTS_LABEL}=${hash}; see the build output above`);
  }
  // The image this one replaced is now untagged; drop it unless something still uses it.
  if (before !== undefined && before.id !== after.id) await docker.getImage(before.id).remove().catch(() => undefined);
  return { tag: options.tag, built: true, seconds: seconds() };
}

async function labelsOf(docker: Docker, tag: string): Promise<{ readonly id: string; readonly labels: Record<string, string> } | undefined> {
  try {
    const info = await docker.getImage(tag).inspect();
    return { id: info.Id, labels: info.Config?.Labels ?? {} };
  } catch (error) {
    if (engineStatus(error) === 404) return undefined;
    throw new Error(`cannot inspect ${tag}: ${engineMessage(error)}`);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// --- CLI -----------------------------------------------------------------------------------------

const IMAGE_NAMES = ["agent", "stand-in"] as const;
type ImageName = (typeof IMAGE_NAMES)[number];

/** Debian's bundle of the CAs this host trusts, including any an administrator added. */
export const HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/**
 * The CA certificates the agent build's npm must trust, so a TLS-inspecting proxy the host trusts
 * works inside the build too: AGENTCAGE_BUILD_CA_CERTS (empty: none), else NODE_EXTRA_CA_CERTS,
 * else the host's own bundle when there is one. The tarballs' sha512 is checked whatever the CAs.
 */
export function buildCaCertsFile(env: NodeJS.ProcessEnv, hostBundleExists: boolean = existsSync(HOST_CA_BUNDLE)): string | undefined {
  const chosen = env["AGENTCAGE_BUILD_CA_CERTS"] ?? env["NODE_EXTRA_CA_CERTS"] ?? (hostBundleExists ? HOST_CA_BUNDLE : undefined);
  return chosen === undefined || chosen === "" ? undefined : chosen;
}

async function requestFor(image: ImageName, root: string, env: NodeJS.ProcessEnv): Promise<BuildImageOptions> {
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
  const compiled = path.join(root, "dist-tools", "test", "stand-in");
  const present = await lstat(path.join(compiled, "main.js")).then(
    () => true,
    () => false,
  );
  if (!present) throw new Error(`${compiled}/main.js is missing; compile it first (npm run build:tools)`);
  const scripts = (await readdir(compiled)).filter((name) => name.endsWith(".js")).sort(compare);
  return {
    tag: STAND_IN_IMAGE,
    contextDir: path.join(root, "images", "stand-in"),
    buildArgs: env["AGENTCAGE_BASE_IMAGE"] ? { BASE_IMAGE: env["AGENTCAGE_BASE_IMAGE"] } : {},
    extraFiles: scripts.map((name) => ({ name: `app/test/stand-in/${name}`, from: path.join(compiled, name) })),
  };
}

async function main(args: readonly string[]): Promise<number> {
  const image = args[0];
  if (args.length !== 1 || !IMAGE_NAMES.includes(image as ImageName)) {
    process.stderr.write(`usage: build-image ${IMAGE_NAMES.join("|")} (got ${JSON.stringify(args.join(" "))})\n`);
    return 2;
  }
  // Run compiled: dist-tools/scripts/build-image.js sits two levels below the repository.
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  try {
    const result = await buildImage(await requestFor(image as ImageName, root, process.env));
    process.stderr.write(`build-image: ${result.built ? "built" : "reused"} ${result.tag} in ${result.seconds} s\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`build-image: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

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

if (isEntry()) process.exitCode = await main(process.argv.slice(2));
