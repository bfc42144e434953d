// How a Run's input files arrive: as the `inputs` part of a multipart POST /v1/runs, after its
// `request` part (the Run request as JSON). Not a second request, because then a Run would exist
// before its inputs: a refused archive would leave a Run to fail, an upload that never comes a Run
// to time out, and the queue, the A2A face and a restart would all need a state for "waiting for
// inputs". In one request a Run exists only once its archive passed (a bad one is the POST's 400),
// Idempotency-Key covers both, and the archive streams into staging's extractor without being buffered.

import type { Readable } from "node:stream";
import multipart, { type Multipart } from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { INPUT_UPLOAD_TIMEOUT_MS, InputsError, inputsTooLarge, MAX_INPUT_ARCHIVE_BYTES } from "../../staging/index.js";
import { bodyRefusal, nestsTooDeeply, TOO_DEEP } from "./json-body.js";
import { MAX_BODY_BYTES } from "../limits.js";

// The multipart side: the `request` part becomes the body the route's schema validates (so a
// multipart request is refused in the same words as a JSON one), the `inputs` part is handed on.

const pending = new WeakMap<FastifyRequest, AsyncIterator<Multipart>>();

/** Lets the routes of `scope` take multipart requests: one `request` field, then at most one `inputs` file. */
export async function registerInputUploads(scope: FastifyInstance): Promise<void> {
  await scope.register(multipart, {
    limits: { fieldNameSize: 100, fieldSize: MAX_BODY_BYTES, fields: 1, files: 1, parts: 2, headerPairs: 100, fileSize: MAX_INPUT_ARCHIVE_BYTES },
  });
}

const PARTS_SAID = "a multipart POST /v1/runs is the part `request` (the Run request as JSON), then optionally the file part `inputs` (a tar archive)";

/** A preValidation hook: in a multipart request, reads the `request` part into `request.body`. */
export async function readRequestPart(request: FastifyRequest): Promise<void> {
  if (!request.isMultipart()) return;
  const parts = request.parts();
  const first = await parts.next();
  const part = first.done === true ? undefined : first.value;
  // A wrong `request` part is a wrong Run request (invalid_request), not refused inputs: a plain 400, as Fastify gives one.
  if (part?.fieldname !== "request") throw Object.assign(new Error(`the first part is not \`request\`; ${PARTS_SAID}`), { statusCode: 400 });
  let text: string;
  if (part.type === "field") {
    if (part.valueTruncated) throw Object.assign(new Error("the request part is too large"), { statusCode: 413 });
    // A field sent as application/json arrives parsed.
    if (typeof part.value !== "string") {
      request.body = withinDepth(part.value);
      pending.set(request, parts);
      return;
    }
    text = part.value;
  } else {
    text = await readBounded(part.file, MAX_BODY_BYTES);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bodyRefusal(`the part \`request\` is not JSON; ${PARTS_SAID}`);
  }
  request.body = withinDepth(value);
  pending.set(request, parts);
}

/** The `request` part's value, refused as a JSON body nested too deeply is (json-body.ts). */
function withinDepth(value: unknown): unknown {
  if (nestsTooDeeply(value)) throw bodyRefusal(TOO_DEEP);
  return value;
}

export type InputsUpload = {
  readonly archive: Readable;
  /** Resolves once the request has ended with nothing after `inputs`; rejects naming what came after it. */
  readonly finish: () => Promise<void>;
  /** Reads and drops the archive: for a request answered without it (a known Idempotency-Key, a full queue). */
  readonly discard: () => void;
};

/** The `inputs` part of a multipart request whose `request` part was read; undefined when there is none. */
export async function takeInputsPart(request: FastifyRequest): Promise<InputsUpload | undefined> {
  const parts = pending.get(request);
  if (parts === undefined) return undefined;
  pending.delete(request);
  let next: IteratorResult<Multipart>;
  try {
    next = await parts.next();
  } catch (error) {
    throw new InputsError(400, `the part after \`request\` could not be read (${(error as Error).message}); ${PARTS_SAID}`);
  }
  if (next.done === true) return undefined;
  const part = next.value;
  if (part.type !== "file" || part.fieldname !== "inputs") {
    if (part.type === "file") part.file.resume();
    throw new InputsError(400, `the part after \`request\` is ${JSON.stringify(part.fieldname)}; ${PARTS_SAID}`);
  }
  const archive = part.file;
  // A body that came in one piece (a buffering proxy, app.inject) was cut at the bound before this
  // listener was there: busboy says so by `truncated`, and the archive is refused as over the bound all the same.
  if (archive.truncated) archive.destroy(inputsTooLarge());
  else archive.on("limit", () => archive.destroy(inputsTooLarge()));
  return {
    archive,
    discard: () => void archive.resume(),
    finish: async () => {
      let after: IteratorResult<Multipart>;
      try {
        after = await parts.next();
      } catch (error) {
        throw new InputsError(400, `the request goes on after \`inputs\` (${(error as Error).message}); ${PARTS_SAID}`);
      }
      if (after.done !== true) throw new InputsError(400, `the request goes on after \`inputs\` with ${JSON.stringify(after.value.fieldname)}; ${PARTS_SAID}`);
    },
  };
}

/** A deadline for one upload: INPUT_UPLOAD_TIMEOUT_MS. */
export function uploadDeadline(): AbortSignal {
  return AbortSignal.timeout(INPUT_UPLOAD_TIMEOUT_MS);
}

/** Reads a part of at most `max` bytes; a longer one is read to its end and dropped (so the caller can still answer), then refused. */
async function readBounded(stream: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size <= max) chunks.push(chunk);
  }
  if (size > max) throw Object.assign(new Error("the request part is too large"), { statusCode: 413 });
  return Buffer.concat(chunks).toString("utf8");
}
