// The service's request and response shapes, declared once: they validate requests, type the
// handlers and generate the OpenAPI document served at /openapi.json.

import { z } from "zod";
import { agentRequestSchema } from "../agents/index.js";
import { RUN_ID, RUN_STATES } from "./store.js";
import { MAX_LABEL_CHARACTERS, MAX_LABELS, MAX_PAGE_SIZE, MAX_PROMPT_CHARACTERS } from "./limits.js";

export const runRequestSchema = agentRequestSchema.extend({
  prompt: z.string().min(1).max(MAX_PROMPT_CHARACTERS, { error: `prompt is longer than ${MAX_PROMPT_CHARACTERS} characters (MAX_PROMPT_CHARACTERS); hand large inputs over as files` }),
  labels: z
    .record(z.string().min(1).max(MAX_LABEL_CHARACTERS), z.string().max(MAX_LABEL_CHARACTERS))
    .refine((labels) => Object.keys(labels).length <= MAX_LABELS, { error: `a Run takes at most ${MAX_LABELS} labels (MAX_LABELS)` })
    .optional(),
  writable: z
    .boolean()
    .optional()
    .describe(
      "Default false. true: the agent edits a copy of its input files (send them as multipart `inputs`); its Harvest is the change set: files/ (what it added or changed), changes.patch (a unified diff git apply takes), changes.json, and its own out/ as out/",
    ),
});

export const runSchema = z.object({
  id: z.string(),
  state: z.enum(RUN_STATES),
  createdAt: z.string(),
  endedAt: z.string().optional(),
  labels: z.record(z.string(), z.string()),
  queuePosition: z.number().int().optional(),
  runId: z.string().optional().describe("the library's run id: the Outcome's runId"),
  inputs: z
    .object({ files: z.number().int(), directories: z.number().int(), bytes: z.number().int() })
    .optional()
    .describe("what the Run's input archive held, when it was given one"),
  outcome: z.unknown().optional().describe("the Run's Outcome, once it has ended"),
});

const runId = z.string().regex(RUN_ID, { error: "the Run id is 16 hex digits, as POST /v1/runs answered it" });

export const runIdParams = z.object({ id: runId });

export const artifactParams = z.object({ id: runId, "*": z.string().min(1).describe("the file's path in the Harvest, as GET /v1/runs/:id/artifacts lists it") });

export const artifactsSchema = z.object({
  id: z.string(),
  harvested: z.boolean().describe("whether the Run's Harvest ran and took what the agent left (false: refused, or the Run ended before it)"),
  files: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string() })),
  bytes: z.number().int().describe("the files' sizes together"),
  refusal: z
    .object({ reason: z.string(), entry: z.string(), message: z.string() })
    .optional()
    .describe("why the Harvest took nothing: the one entry and the rule it broke"),
  changes: z
    .object({ added: z.array(z.string()).readonly(), changed: z.array(z.string()).readonly(), deleted: z.array(z.string()).readonly(), undiffed: z.array(z.string()).readonly(), bytes: z.number().int(), outFiles: z.number().int().optional() })
    .optional()
    .describe("with a writable workspace: what the agent changed, relative to its inputs (outFiles: the files of its own out/, harvested beside as out/)"),
  patch: z.boolean().optional().describe("with a writable workspace: whether changes.patch (a unified diff git apply takes) is among the files"),
});

export const listQuery = z.object({
  state: z.enum(RUN_STATES).optional(),
  label: z
    .string()
    .regex(/^[^=]+=.*$/, { error: "label is key=value" })
    .optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z.string().optional().describe("the nextCursor of the previous page"),
});

export const eventsQuery = z.object({ after: z.coerce.number().int().min(0).optional().describe("replay events after this id (as Last-Event-ID does)") });

export const errorSchema = z.object({ error: z.string(), message: z.string() });
