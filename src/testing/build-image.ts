// Builds one image through the engine seam from a context directory, skipping the build when an
// image of that tag already carries the same inputs digest. Invariant: an image is reported built
// only when the engine answered without error and the tag then carries exactly that digest.
// The engine is the caller's, or the default Docker engine: nothing here speaks dockerode.

import type Docker from "dockerode";
import path from "node:path";
import type { Readable } from "node:stream";
import { createDockerEngine, engineMessage, type Engine } from "../engine/index.js";
import { jsonLines } from "../plan/index.js";
import { RunRequestError } from "../runtime/index.js";
import { INPUTS_LABEL, inputsHash, packContext, readContext, type ExtraFile } from "./image-context.js";

/** What a build needs of an engine; any Engine (`createDockerEngine()`) is one. */
export type ImageEngine = Pick<Engine, "buildImage" | "inspectImage" | "removeImage">;

/** Which engine builds: an engine, or the Docker connection the default engine uses; not both. */
export type ImageEngineConnection = {
  /** Default: Docker through `docker`. */
  readonly engine?: ImageEngine;
  /** The Docker connection the default engine uses, e.g. `new Docker()` from dockerode; default: DOCKER_HOST, else the local socket. */
  readonly docker?: Docker;
};

/** Colour codes the legacy builder wraps a step's stderr in. */
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;
/** The legacy builder's own bookkeeping lines, which never say why a step failed. */
const BUILDER_CHATTER = /^(---> |Removing intermediate container |Running in )/;

/** One image to build: where its context is and what it is given. */
export type ImageBuildRequest = {
  readonly tag: string;
  readonly contextDir: string;
  /** Path of the Dockerfile inside the context. Default: "Dockerfile". */
  readonly dockerfile?: string;
  readonly buildArgs: Readonly<Record<string, string>>;
  /** Files added to the context from elsewhere. Default: none. */
  readonly extraFiles?: readonly ExtraFile[];
};

export type BuildImageOptions = ImageBuildRequest &
  ImageEngineConnection & {
    /** Where the build's progress lines go. Default: process.stderr. */
    readonly output?: NodeJS.WritableStream;
  };

export type BuildImageResult = { readonly tag: string; readonly built: boolean; readonly seconds: number };

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
    const lines = text
      .replace(ANSI_ESCAPE, "")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !BUILDER_CHATTER.test(l));
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

/** The engine a connection names, or an error naming what is wrong with it. */
export function imageEngineOf(call: string, connection: ImageEngineConnection): ImageEngine {
  const { engine, docker } = connection;
  if (engine !== undefined && docker !== undefined) throw new RunRequestError(`${call} was given both engine and docker; pass one, not both`);
  if (engine === undefined) return createDockerEngine(docker);
  if (typeof engine !== "object" || engine === null || typeof engine.inspectImage !== "function") {
    throw new RunRequestError(`${call}'s engine is not an Engine; pass createDockerEngine(...), or a dockerode instance as docker`);
  }
  return engine;
}

/** Builds `tag` from the context unless an image of that tag already carries the same inputs label. */
export async function buildImage(options: BuildImageOptions): Promise<BuildImageResult> {
  const started = performance.now();
  const seconds = (): number => Math.round((performance.now() - started) / 100) / 10;
  const engine = imageEngineOf("buildImage", options);
  const dockerfile = options.dockerfile ?? "Dockerfile";
  const output = options.output ?? process.stderr;
  const files = await readContext(options.contextDir, options.extraFiles);
  if (!files.some((file) => file.name === dockerfile)) {
    throw new Error(`${path.join(options.contextDir, dockerfile)} does not exist; the build context needs its Dockerfile`);
  }
  const hash = inputsHash(files, options.buildArgs, dockerfile);

  const before = await labelsOf(engine, options.tag);
  if (before?.labels[INPUTS_LABEL] === hash) return { tag: options.tag, built: false, seconds: seconds() };

  let progressStream: AsyncIterable<Uint8Array>;
  try {
    progressStream = await engine.buildImage({
      // tar-stream's pack is a streamx stream, which reads as a Node Readable does.
      context: packContext(files) as unknown as Readable,
      tag: options.tag,
      dockerfile,
      buildArgs: options.buildArgs,
      labels: { [INPUTS_LABEL]: hash },
    });
  } catch (error) {
    throw new Error(`the engine refused to build ${options.tag}: ${engineMessage(error)}`);
  }
  const progress = await readBuildProgress(progressStream, (text) => output.write(text));
  if (progress.error !== undefined) {
    const why = progress.lastLine === undefined ? "" : ` (its last output: ${JSON.stringify(progress.lastLine)})`;
    throw new Error(`building ${options.tag} failed: ${progress.error.trim()}${why}`);
  }

  const after = await labelsOf(engine, options.tag);
  if (after?.labels[INPUTS_LABEL] !== hash) {
    throw new Error(`the engine reported no error, but ${options.tag} does not carry ${INPUTS_LABEL}=${hash}; see the build output above`);
  }
  // The image this one replaced is now untagged; drop it unless something still uses it.
  if (before !== undefined && before.id !== after.id) await engine.removeImage(before.id).catch(() => undefined);
  return { tag: options.tag, built: true, seconds: seconds() };
}

async function labelsOf(engine: ImageEngine, tag: string): Promise<{ readonly id: string; readonly labels: Readonly<Record<string, string>> } | undefined> {
  try {
    return await engine.inspectImage(tag);
  } catch (error) {
    throw new Error(`cannot inspect ${tag}: ${engineMessage(error)}`);
  }
}
