// POST /v1/runs: a Run request as JSON, or multipart with its input archive (inputs.ts). 202 for a
// new Run; 200 for a known Idempotency-Key and the same request, 422 for a different one; 429 when
// the queue is full or the tenant is at a quota (the body names it), 503 while draining. A refused archive is the POST's own refusal and makes no
// Run; an archive the answer did not need is read and dropped.

import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { ErrorCode } from "../../errors/index.js";
import { extractInputs, InputsError } from "../../staging/index.js";
import { readRequestPart, registerInputUploads, takeInputsPart, uploadDeadline, type InputsUpload } from "./inputs.js";
import { RETRY_AFTER_SECONDS } from "../limits.js";
import { quotaMessage } from "../runs/index.js";
import { runView } from "./route-view.js";
import type { Admitted, InputsWriter, KeyReused, Refused, RunService, Unserved } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorBody, errorSchema, runRequestSchema, runSchema } from "./schemas.js";

type Submitted = Admitted | KeyReused | Refused | Unserved;

const CREATE_RUN_SCHEMA = {
  operationId: "createRun",
  summary: "Start a Run: one agent request and its prompt, in a fresh locked-down container",
  description:
    "The Run request as JSON; or, to give the agent input files, multipart/form-data with the part `request` (this JSON) and then the file part `inputs`: " +
    "an uncompressed tar archive of regular files and directories (no links, devices, absolute or `..` names). It is checked and extracted before the Run is accepted; " +
    "a bad archive refuses the Run (400) naming the entry, and the agent finds the files in its working directory.",
  body: runRequestSchema,
  headers: z.object({
    "idempotency-key": z.string().max(200).optional(),
    traceparent: z
      .string()
      .optional()
      .describe(
        "W3C Trace Context: with traces on (OTEL_EXPORTER_OTLP_ENDPOINT), the Run's span agentcage.run is a child of this span; a malformed value is ignored, never refused",
      ),
    tracestate: z.string().optional().describe("W3C Trace Context: carried with traceparent"),
  }),
  response: {
    200: runSchema,
    202: runSchema,
    400: errorSchema,
    408: errorSchema,
    413: errorSchema,
    422: errorSchema,
    429: errorSchema,
    503: errorSchema,
  },
};

export function registerSubmitRoute(fastify: FastifyInstance, all: RunService): void {
  // Only this route takes multipart, so the multipart parser lives in a scope of its own.
  void fastify.register(async (scope) => {
    await registerInputUploads(scope);
    scope.withTypeProvider<ZodTypeProvider>().post("/v1/runs", { schema: CREATE_RUN_SCHEMA, preValidation: readRequestPart }, async (request, reply) => {
      const service = runsFor(all, request.caller);
      const key = request.headers["idempotency-key"];
      let upload: InputsUpload | undefined;
      let submitted: Submitted;
      try {
        upload = await takeInputsPart(request);
        submitted = await service.submit(request.body, key, upload === undefined ? undefined : inputsWriter(upload));
      } catch (error) {
        if (error instanceof InputsError) return refuseInputs(reply, error);
        throw error;
      }
      // Answered without reading the archive (a full queue, a known key): it is read and dropped.
      if (upload !== undefined && !madeRun(submitted)) upload.discard();
      return answerSubmitted(reply, submitted, key, service);
    });
  });
}

/** Extracts the archive into the Run's directory, then holds the request to having nothing after it. */
function inputsWriter(upload: InputsUpload): InputsWriter {
  return async (directory) => {
    const summary = await extractInputs(upload.archive, directory, { signal: uploadDeadline() });
    await upload.finish();
    return summary;
  };
}

function madeRun(submitted: Submitted): boolean {
  return typeof submitted !== "string" && "created" in submitted && submitted.created;
}

function refuseInputs(reply: FastifyReply, error: InputsError): FastifyReply {
  // A bad archive was read to its end; one too large or too slow was not, and what is left of it
  // never will be: the connection closes after the answer.
  if (error.statusCode !== 400) void reply.header("connection", "close");
  return reply.code(error.statusCode).send(errorBody(error.code, error.message));
}

/** Why a submit made no Run, as POST /v1/runs (and MCP's run_agent) answers it: a code of the catalogue and the sentence. */
export function submitRefusal(submitted: Refused | Unserved | KeyReused, key: string | undefined): { readonly error: ErrorCode; readonly message: string } {
  if (submitted === "queue_full") return errorBody("queue_full", `the queue is full; try again in ${RETRY_AFTER_SECONDS} s`);
  if (submitted === "draining") return errorBody("draining", "the service is shutting down and takes no new Runs; send it to the service once it is back");
  if ("quota" in submitted) return errorBody("quota_exceeded", quotaMessage(submitted));
  if ("unserved" in submitted) return errorBody("invalid_request", submitted.unserved);
  const message = `Idempotency-Key ${JSON.stringify(key)} was already used for Run ${submitted.reused.id} with a different request; send that same request to get that Run again, or a new key for a new Run`;
  return errorBody("idempotency_key_reused", message);
}

async function answerSubmitted(reply: FastifyReply, submitted: Submitted, key: string | undefined, service: RunService): Promise<FastifyReply> {
  if (typeof submitted !== "string" && "record" in submitted) {
    return reply
      .code(submitted.created ? 202 : 200)
      .header("location", `/v1/runs/${submitted.record.id}`)
      .send(await runView(service, submitted.record));
  }
  const refused = submitted;
  const body = submitRefusal(refused, key);
  if (refused === "queue_full" || refused === "draining") {
    return reply
      .code(refused === "queue_full" ? 429 : 503)
      .header("Retry-After", String(RETRY_AFTER_SECONDS))
      .send(body);
  }
  if ("quota" in refused) {
    return reply
      .code(429)
      .header("Retry-After", String(refused.retryAfterSeconds))
      .send({ ...body, quota: refused.quota, limit: refused.limit, used: refused.used });
  }
  return reply.code("unserved" in refused ? 400 : 422).send(body);
}
