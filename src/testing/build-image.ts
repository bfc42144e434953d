// Builds one image through the Engine API from a context directory, skipping the build when an
// image of that tag already carries the same inputs digest. Invariant: an image is reported built
// only when the engine answered without error and the tag then carries exactly that digest.
// The Docker connection is the caller's (a dockerode instance): nothing here constructs one.

import type Docker from "dockerode";
import path from "node:path";
import { engineMessage, engineStatus } from "../engine/index.js";
import { jsonLines } from "../plan/index.js";
import { INPUTS_LABEL, inputsHash, packContext, readContext, type ExtraFile } from "./image-context.js";

/** What a build needs of a Docker connection; a dockerode instance (`new Docker()`) is one. */
export type DockerImages = Pick<Docker, "buildImage" | "getImage">;

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

export type BuildImageOptions = ImageBuildRequest & {
  readonly docker: DockerImages;
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

/** Builds `tag` from the context unless an image of that tag already carries the same inputs label. */
export async function buildImage(options: BuildImageOptions): Promise<BuildImageResult> {
  const started = performance.now();
  const seconds = (): number => Math.round((performance.now() - started) / 100) / 10;
  const { docker } = options;
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
  if (before !== undefined && before.id !== after.id)
    await docker
      .getImage(before.id)
      .remove()
      .catch(() => undefined);
  return { tag: options.tag, built: true, seconds: seconds() };
}

async function labelsOf(docker: DockerImages, tag: string): Promise<{ readonly id: string; readonly labels: Record<string, string> } | undefined> {
  try {
    const info = await docker.getImage(tag).inspect();
    return { id: info.Id, labels: info.Config?.Labels ?? {} };
  } catch (error) {
    if (engineStatus(error) === 404) return undefined;
    throw new Error(`cannot inspect ${tag}: ${engineMessage(error)}`);
  }
}
