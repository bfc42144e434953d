// A Run's artifacts over HTTP: what its Harvest put in the Run's harvest/, served only after the
// Run has ended (the Harvest is done and nothing writes there again), never from a container. A
// list with each file's size and sha256, one file streamed, or the whole Harvest as a tar stream;
// staging's harvest-files.ts does the reading, through directories opened without following a link.

import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { HarvestResult } from "../../plan/index.js";
import { listArtifacts, openArtifact, packArtifacts } from "../../staging/index.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { artifactParams, artifactsSchema, errorBody, errorSchema, runIdParams } from "./schemas.js";
import { RUN_NOT_FOUND } from "./route-view.js";
import { TERMINAL_STATES } from "../runs/index.js";

/** What GET /v1/runs/:id/artifacts answers (and MCP's run_artifacts): the files under `root`, the Harvest's refusal or change set. */
export async function artifactsOf(service: RunService, id: string, root: string) {
  const files = await listArtifacts(root);
  const harvest = ((await service.outcome(id)) as { harvest?: HarvestResult } | undefined)?.harvest;
  return {
    id,
    harvested: harvest?.ok === true,
    files,
    bytes: files.reduce((sum, file) => sum + file.size, 0),
    ...(harvest?.ok === false ? { refusal: harvest.refusal } : {}),
    ...(harvest?.ok === true && harvest.changes !== undefined ? { changes: harvest.changes, patch: files.some((file) => file.path === "changes.patch") } : {}),
  };
}

/** The message for a Run whose artifacts were asked before it ended. */
export function notEndedMessage(id: string, state: string): string {
  return `the Run is ${state}; its artifacts are there once it has ended (watch GET /v1/runs/${id}/events for its end event)`;
}

/** GET /v1/runs/:id/artifacts, /artifacts/*, /artifacts.tar: only once the Run has ended. */
export function registerArtifactRoutes(fastify: FastifyInstance, all: RunService): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  /** The Run's harvest/ once it has ended; otherwise the reply already answered. */
  const harvestOf = async (service: RunService, id: string, reply: FastifyReply): Promise<string | undefined> => {
    const record = await service.get(id);
    if (record === undefined) {
      void reply.code(404).send(RUN_NOT_FOUND);
      return undefined;
    }
    if (!TERMINAL_STATES.has(record.state)) {
      void reply.code(409).send(errorBody("not_ended", notEndedMessage(id, record.state)));
      return undefined;
    }
    return service.harvestDirectory(id);
  };

  app.get(
    "/v1/runs/:id/artifacts",
    {
      schema: {
        operationId: "listArtifacts",
        summary: "The files the Run's Harvest took, with size and sha256, and what the agent changed when its workspace was writable",
        params: runIdParams,
        response: { 200: artifactsSchema, 404: errorSchema, 409: errorSchema },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      const root = await harvestOf(service, request.params.id, reply);
      if (root === undefined) return reply;
      return artifactsOf(service, request.params.id, root);
    },
  );

  app.get(
    "/v1/runs/:id/artifacts.tar",
    {
      schema: {
        operationId: "getArtifactsTar",
        summary: "The Run's whole Harvest as an uncompressed tar stream",
        params: runIdParams,
        produces: ["application/x-tar"],
        response: { 200: z.unknown().describe("a tar stream"), 404: errorSchema, 409: errorSchema },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      const root = await harvestOf(service, request.params.id, reply);
      if (root === undefined) return reply;
      return reply
        .type("application/x-tar")
        .header("content-disposition", `attachment; filename="${request.params.id}-artifacts.tar"`)
        .send(packArtifacts(root));
    },
  );

  app.get(
    "/v1/runs/:id/artifacts/*",
    {
      schema: {
        operationId: "getArtifact",
        summary: "One harvested file, streamed",
        params: artifactParams,
        produces: ["application/octet-stream"],
        response: { 200: z.unknown().describe("the file's bytes"), 400: errorSchema, 404: errorSchema, 409: errorSchema },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      const root = await harvestOf(service, request.params.id, reply);
      if (root === undefined) return reply;
      const path = request.params["*"];
      const opened = await openArtifact(root, path);
      if (opened === undefined)
        return reply
          .code(404)
          .send(errorBody("not_found", `the Harvest has no file ${JSON.stringify(path)}; list them with GET /v1/runs/${request.params.id}/artifacts`));
      if ("refused" in opened) return reply.code(400).send(errorBody("invalid_request", opened.refused));
      const name = path.slice(path.lastIndexOf("/") + 1);
      return reply
        .type("application/octet-stream")
        .header("content-length", String(opened.size))
        .header("x-content-type-options", "nosniff")
        .header("content-disposition", `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
        .send(opened.handle.createReadStream());
    },
  );
}
