// The service's request and response shapes, declared once: they validate requests, type the
// handlers and generate the OpenAPI document served at /openapi.json.

import { z } from "zod";
import { agentRequestSchema } from "../agents/index.js";
import { RUN_STATES } from "./store.js";
import { MAX_LABEL_CHARACTERS, MAX_LABELS, MAX_PAGE_SIZE, MAX_PROMPT_CHARACTERS } from "./limits.js";

export const runRequestSchema = agentRequestSchema.extend({
  prompt: z.string().min(1).max(MAX_PROMPT_CHARACTERS, { error: `prompt is longer than ${MAX_PROMPT_CHARACTERS} characters (MAX_PROMPT_CHARACTERS); hand large inputs over as files` }),
  labels: z
    .record(z.string().min(1).max(MAX_LABEL_CHARACTERS), z.string().max(MAX_LABEL_CHARACTERS))
    .refine((labels) => Object.keys(labels).length <= MAX_LABELS, { error: `a Run takes at most ${MAX_LABELS} labels (MAX_LABELS)` })
    .optional(),
});

export const runSchema = z.object({
  id: z.string(),
  state: z.enum(RUN_STATES),
  createdAt: z.string(),
  endedAt: z.string().optional(),
  labels: z.record(z.string(), z.string()),
  queuePosition: z.number().int().optional(),
  runId: z.string().optional().describe("the library's run id: the Outcome's runId"),
  outcome: z.unknown().optional().describe("the Run's Outcome, once it has ended"),
});

export const runIdParams = z.object({ id: z.string().regex(/^[0-9a-f]{16}$/, { error: "the Run id is 16 hex digits, as POST /v1/runs answered it" }) });

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
