// The service's request and response shapes, declared once: they validate requests, type the
// handlers and generate the OpenAPI document served at /openapi.json.

import { z } from "zod";
import { AGENT_CLIS, agentRequestSchema } from "../../agents/index.js";
import { ERROR_CODES, type ErrorCode, quote } from "../../errors/index.js";
import { END_REASONS } from "../../plan/index.js";
import { RUN_ID_PATTERN } from "../../staging/index.js";
import { RUN_STATES } from "../runs/index.js";
import { MAX_LABEL_CHARACTERS, MAX_LABELS, MAX_PAGE_SIZE, MAX_PROMPT_CHARACTERS } from "../limits.js";

export const runRequestSchema = agentRequestSchema.safeExtend({
  prompt: z
    .string()
    .min(1)
    .max(MAX_PROMPT_CHARACTERS, {
      error: (issue) =>
        `prompt is ${String(issue.input).length} characters, over MAX_PROMPT_CHARACTERS (${MAX_PROMPT_CHARACTERS}); hand large inputs over as files`,
    })
    // A CLI given only whitespace fails in its own words after a container started; refuse it here.
    .refine((prompt) => prompt.trim() !== "", { error: "prompt is only whitespace; write what the agent should do" }),
  labels: z
    .record(z.string().min(1).max(MAX_LABEL_CHARACTERS), z.string().max(MAX_LABEL_CHARACTERS))
    .refine((labels) => Object.keys(labels).length <= MAX_LABELS, {
      error: (issue) => `labels has ${Object.keys(issue.input as object).length} labels, over MAX_LABELS (${MAX_LABELS}); send at most ${MAX_LABELS}`,
    })
    .optional(),
  callbackUrl: z
    .url({
      protocol: /^https?$/,
      error: (issue) =>
        `callbackUrl ${quote(String(issue.input))} is not an http or https URL; write the address your receiver listens at, e.g. https://hooks.example.com/agentcage`,
    })
    .max(2048)
    .optional()
    .describe(
      "Where the service POSTs this Run's webhooks (run.started, run.finished), signed per Standard Webhooks with the tenant's secret; default the tenant's own callback URL, if it has one. An address that resolves to loopback, link-local or private addresses is refused unless the Operator allowed it",
    ),
  writable: z
    .boolean()
    .optional()
    .describe(
      "Default false. true: the agent edits a copy of its input files (send them as multipart `inputs`); its Harvest is the change set: files/ (what it added or changed), changes.patch (a unified diff git apply takes), changes.json, and its own out/ as out/",
    ),
});

const count = z.number().int();

/** What a Run's change set holds, relative to its inputs (a writable workspace). */
const changesSchema = z
  .object({
    added: z.array(z.string()).readonly(),
    changed: z.array(z.string()).readonly(),
    deleted: z.array(z.string()).readonly(),
    undiffed: z.array(z.string()).readonly(),
    bidiOrControl: z
      .array(z.string())
      .readonly()
      .optional()
      .describe("the files whose lines in changes.patch hold bidi or control characters (a line may read differently from what applies); absent: none"),
    bytes: count,
    outFiles: count.optional(),
  })
  .describe("with a writable workspace: what the agent changed, relative to its inputs (outFiles: the files of its own out/, harvested beside as out/)");

/**
 * The Outcome as the library's runner answers it (AgentOutcome), for the document and its clients.
 * Loose objects: a field the library adds is served, not dropped, before this schema names it.
 */
export const outcomeSchema = z
  .looseObject({
    ok: z.boolean(),
    reason: z.enum(END_REASONS),
    runId: z.string().optional().describe("the Run's id: the same as the Run's `id`"),
    error: z.string().optional().describe("one message for a person, when the Run did not complete"),
    durationMs: z.number().optional(),
    queuedMs: z.number().optional(),
    cli: z.enum(AGENT_CLIS).optional(),
    credential: z.string().optional().describe("which kind of credential the Run got (never its value)"),
    result: z
      .looseObject({
        ok: z.boolean().optional(),
        reason: z.string().optional(),
        text: z.string().optional().describe("the agent's final answer"),
        sessionId: z.string().optional().describe("what a later Run resumes with resumeSession"),
        numTurns: count.optional(),
        usage: z.looseObject({ inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count }).optional(),
        costUsd: z.number().optional(),
        model: z.string().optional(),
        retryable: z.boolean().optional(),
      })
      .optional()
      .describe("what the agent's stream said, secrets masked"),
    exit: z.looseObject({ code: z.number().int(), signal: z.string().optional(), oomKilled: z.boolean() }).optional(),
    stdoutBytes: count.optional(),
    stderrBytes: count.optional(),
    stderr: z.string().optional(),
    harvest: z
      .union([
        z.looseObject({ ok: z.literal(true), files: count, directories: count, bytes: count, changes: changesSchema.optional() }),
        z.looseObject({ ok: z.literal(false), refusal: z.looseObject({ reason: z.string(), entry: z.string(), message: z.string() }) }),
      ])
      .optional(),
    session: z
      .looseObject({ id: z.string().optional(), kept: z.boolean(), error: z.string().optional() })
      .optional()
      .describe("with sessions kept: the session the Run was kept as, or why not"),
    budget: z.looseObject({}).optional().describe("with a budget: its caps, what the Run spent, and the cap it passed"),
    network: z.looseObject({ policy: z.string() }).optional().describe("the Run's network policy, and under the egress proxy its meter"),
    warm: z
      .boolean()
      .optional()
      .describe("with a warm pool (serve --pool): true when a container started ahead served the Run, false when it started cold (GET /v1/pool says why)"),
    standIn: z
      .literal(true)
      .optional()
      .describe("the stand-in model answered (serve --stand-in): the usage, and any cost priced from it, are made up and billed by no one"),
  })
  .describe("the typed end of a Run");

export const runSchema = z.object({
  id: z.string(),
  tenant: z.string().describe("the tenant whose key made it"),
  state: z.enum(RUN_STATES),
  cli: z.enum(AGENT_CLIS).optional().describe("the CLI its request named (absent only for a Run whose request could not be read)"),
  model: z.string().optional().describe("the model its request named; absent: the CLI's default (the Outcome's result.model says which answered)"),
  createdAt: z.string().describe("when it was accepted"),
  startedAt: z.string().optional().describe("when it got its slot and its container began to be made; absent while it waits, and for one that never started"),
  endedAt: z.string().optional(),
  reason: z.enum(END_REASONS).optional().describe("once it has ended: how, as its Outcome's reason"),
  durationMs: z.number().optional().describe("once it has ended: its Outcome's durationMs, from its start to its end"),
  labels: z.record(z.string(), z.string()),
  queuePosition: z.number().int().optional(),
  inputs: z
    .object({ files: z.number().int(), directories: z.number().int(), bytes: z.number().int() })
    .optional()
    .describe("what the Run's input archive held, when it was given one"),
  usage: z
    .object({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), costUsd: z.number().optional() })
    .optional()
    .describe(
      "once it has ended: its tokens and cost, as the egress proxy metered them, else as its CLI reported them; what usage and the daily spend quota count",
    ),
  outcome: outcomeSchema.optional().describe("the Run's Outcome, once it has ended"),
});

export const ARTIFACT_PATH_HELP = "the file's path in the Harvest, as GET /v1/runs/{id}/artifacts lists it; its slashes as they are or percent-encoded (%2F)";

const runId = z
  .string()
  .regex(RUN_ID_PATTERN, { error: (issue) => `the Run id ${quote(issue.input)} is not 16 hex digits; use the id POST /v1/runs answered` });

export const runIdParams = z.object({ id: runId });

/** `*` in the route (a path may hold slashes); the document names it `path` (app.ts). */
export const artifactParams = z.object({ id: runId, "*": z.string().min(1).describe(ARTIFACT_PATH_HELP) });

export const artifactsSchema = z.object({
  id: z.string(),
  harvested: z.boolean().describe("whether the Run's Harvest ran and took what the agent left (false: refused, or the Run ended before it)"),
  files: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string() })),
  bytes: z.number().int().describe("the files' sizes together"),
  refusal: z
    .object({ reason: z.string(), entry: z.string(), message: z.string() })
    .optional()
    .describe("why the Harvest took nothing: the one entry and the rule it broke"),
  changes: changesSchema.optional(),
  patch: z.boolean().optional().describe("with a writable workspace: whether changes.patch (a unified diff git apply takes) is among the files"),
});

const label = z.string().regex(/^[^=]+=.*$/, { error: (issue) => `label ${quote(issue.input)} is not key=value; send label=key=value, once for each label` });

// Strict, as the bodies are: a parameter the route does not take (?labels= for label) is refused, not ignored.
export const listQuery = z.strictObject({
  state: z.enum(RUN_STATES).optional(),
  cli: z.enum(AGENT_CLIS).optional().describe("the Runs whose request named this CLI"),
  label: z
    .union([label, z.array(label)])
    .transform((given) => (typeof given === "string" ? [given] : given))
    .optional()
    .describe("key=value; given more than once, a Run has every one of them"),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
  cursor: z
    .string()
    .regex(RUN_ID_PATTERN, {
      error: (issue) => `cursor ${quote(issue.input)} is not a Run id; send the nextCursor of the previous page as it was, or no cursor for the first page`,
    })
    .optional()
    .describe("the nextCursor of the previous page"),
});

export const eventsQuery = z.strictObject({ after: z.coerce.number().int().min(0).optional().describe("replay events after this id (as Last-Event-ID does)") });

/** Every refusal's body: `error` is a code of the catalogue (ERROR_CODES), `message` one sentence saying what to send. */
export const errorSchema = z.object({
  error: z.enum(Object.keys(ERROR_CODES) as ErrorCode[]).describe("a stable code from agentcage's catalogue of errors; branch on it, not on the message"),
  message: z.string(),
  quota: z.enum(["max_queued", "daily_spend_usd"]).optional().describe("with quota_exceeded: the tenant's quota the request passed"),
  limit: z.number().optional().describe("with quota_exceeded: the quota's limit"),
  used: z.number().optional().describe("with quota_exceeded: what the tenant has used of it"),
});

/** A refusal's body; `code` is held to the catalogue when this compiles. */
export function errorBody(code: ErrorCode, message: string): z.infer<typeof errorSchema> {
  return { error: code, message };
}
