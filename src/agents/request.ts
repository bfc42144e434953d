// The typed request an agent Run is asked with: validated strictly (unknown fields refused,
// at most MAX_AGENT_REQUEST_BYTES), so an adapter builds argv from known fields only, never from text
// a caller wrote as flags. The prompt is not here: it always travels on stdin.

import { z } from "zod";
import { issueSentence, knownKeys, valueAt, AgentcageError } from "../errors/index.js";
import {
  DEFAULT_MAX_TURNS,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  MAX_AGENT_REQUEST_BYTES,
  MAX_REQUEST_TIMEOUT_SECONDS,
  MAX_TURNS,
  MIN_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_STALL_SECONDS,
  MAX_BUDGET_COST_USD,
  MAX_BUDGET_TOKENS,
  MAX_STALL_SECONDS,
} from "./limits.js";
import { AGENT_CLIS, perCli, type AgentCli } from "./adapters.js";

/** A whole number from `min` to `max`, refused in words that name the field and quote the value. */
function wholeIn(field: string, min: number, max: number) {
  const out = (issue: { input: unknown }) => `${field} ${JSON.stringify(issue.input)} is out of range; write a whole number from ${min} to ${max}`;
  return z
    .number({ error: (issue) => `${field} ${JSON.stringify(issue.input)} is not a number; write a whole number from ${min} to ${max}` })
    .refine(Number.isInteger, { error: (issue) => `${field} ${JSON.stringify(issue.input)} is not a whole number` })
    .min(min, { error: out })
    .max(max, { error: out });
}

const budgetSchema = z.strictObject({
  maxTurns: wholeIn("budget.maxTurns", 1, MAX_TURNS).optional(),
  maxTokens: wholeIn("budget.maxTokens", 1, MAX_BUDGET_TOKENS).optional(),
  maxCostUsd: z
    .number({ error: (issue) => `budget.maxCostUsd ${JSON.stringify(issue.input)} is not a number; write dollars, e.g. 0.5` })
    .gt(0, { error: (issue) => `budget.maxCostUsd ${JSON.stringify(issue.input)} is out of range; write dollars above 0, at most ${MAX_BUDGET_COST_USD}` })
    .max(MAX_BUDGET_COST_USD, {
      error: (issue) => `budget.maxCostUsd ${JSON.stringify(issue.input)} is out of range; write dollars above 0, at most ${MAX_BUDGET_COST_USD}`,
    })
    .optional(),
  maxWallSeconds: wholeIn("budget.maxWallSeconds", 1, MAX_REQUEST_TIMEOUT_SECONDS).optional(),
});

/**
 * The reasoning efforts each CLI takes (its adapter's, checked against the pinned versions; a CLI's
 * pin moving may change them).
 */
export const AGENT_EFFORTS: Readonly<Record<AgentCli, readonly string[]>> = perCli((adapter) => adapter.efforts);

/** Letters, digits and `._:/@[]-`, not starting with a dash: never a flag, never a shell word. */
const MODEL = /^[A-Za-z0-9._:/@[\]][A-Za-z0-9._:/@[\]-]*$/;
/**
 * A CLI session id: a lower-case UUID, as both CLIs print them. Anything else is refused here:
 * codex silently starts a new thread for an id that is not a UUID, and claude looks it up as a title.
 */
const SESSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The agent request's schema, for a service that validates and documents it in one place. */
export const agentRequestSchema = z
  .strictObject({
    cli: z.enum(AGENT_CLIS, { error: (issue) => `cli ${JSON.stringify(issue.input)} is not one of ${AGENT_CLIS.join(", ")}` }),
    model: z
      .string()
      .max(200)
      .regex(MODEL, { error: (issue) => `model ${JSON.stringify(issue.input)} is not a model id; use letters, digits and ._:/@[]- and do not start with "-"` })
      .optional(),
    /** One of AGENT_EFFORTS[cli], checked against the cli below. */
    effort: z.string().optional(),
    web: z.boolean().default(false),
    noTools: z.boolean().default(false),
    maxTurns: z
      .number()
      .refine(Number.isInteger, { error: (issue) => `maxTurns ${JSON.stringify(issue.input)} is not a whole number` })
      .min(0, { error: (issue) => `maxTurns ${JSON.stringify(issue.input)} is out of range; write 0 to ${MAX_TURNS}` })
      .max(MAX_TURNS, { error: (issue) => `maxTurns ${JSON.stringify(issue.input)} is out of range; write 0 to ${MAX_TURNS}` })
      .default(DEFAULT_MAX_TURNS),
    timeoutSeconds: z
      .number()
      .refine(Number.isInteger, { error: (issue) => `timeoutSeconds ${JSON.stringify(issue.input)} is not a whole number` })
      .min(MIN_REQUEST_TIMEOUT_SECONDS, {
        error: (issue) =>
          `timeoutSeconds ${JSON.stringify(issue.input)} is out of range; write ${MIN_REQUEST_TIMEOUT_SECONDS} to ${MAX_REQUEST_TIMEOUT_SECONDS}`,
      })
      .max(MAX_REQUEST_TIMEOUT_SECONDS, {
        error: (issue) =>
          `timeoutSeconds ${JSON.stringify(issue.input)} is out of range; write ${MIN_REQUEST_TIMEOUT_SECONDS} to ${MAX_REQUEST_TIMEOUT_SECONDS}`,
      })
      .default(DEFAULT_REQUEST_TIMEOUT_SECONDS),
    systemPrompt: z.string().optional(),
    /** Caps that stop the Run as budget_exceeded, watched live from its events. */
    budget: budgetSchema.optional(),
    /** Seconds with no output and no CPU used after which the Run is stopped as stalled. */
    stallSeconds: wholeIn("stallSeconds", 1, MAX_STALL_SECONDS).default(DEFAULT_STALL_SECONDS),
    resumeSession: z
      .string()
      .regex(SESSION, {
        error: (issue) =>
          `resumeSession ${JSON.stringify(issue.input)} is not a session id (a lower-case UUID); pass the sessionId an earlier Outcome reported`,
      })
      .optional(),
  })
  .check((context) => {
    const { cli, effort } = context.value;
    if (effort === undefined || AGENT_EFFORTS[cli].includes(effort)) return;
    context.issues.push({
      code: "custom",
      path: ["effort"],
      input: effort,
      message: `effort ${JSON.stringify(effort)} is not one ${cli} takes; write one of ${AGENT_EFFORTS[cli].join(", ")}`,
    });
  });

/** A request as the caller writes it (defaults may be left out). */
export type AgentRequestInput = z.input<typeof agentRequestSchema>;
/** A request after validation, with every default filled in. */
export type AgentRequest = z.output<typeof agentRequestSchema>;

/** Thrown by parseAgentRequest for a malformed request, naming every problem; the runner turns it into an `invalid_request` Outcome instead. */
export class AgentRequestError extends AgentcageError {
  override readonly name = "AgentRequestError";
  readonly code = "invalid_agent_request";
}

/** Validates a request; throws AgentRequestError naming every problem. */
export function parseAgentRequest(input: unknown): AgentRequest {
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(input) ?? "");
  } catch {
    throw new AgentRequestError("the request is not JSON data; pass a plain object");
  }
  if (size > MAX_AGENT_REQUEST_BYTES) {
    throw new AgentRequestError(
      `the request is ${size} bytes, over its limit of ${MAX_AGENT_REQUEST_BYTES} (MAX_AGENT_REQUEST_BYTES); move large text into the prompt or input files`,
    );
  }
  const parsed = agentRequestSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.map(String).join(".");
    return issueSentence(issue, {
      name: name === "" ? "the agent request" : name,
      value: valueAt(input, issue.path),
      taker: name === "" ? "the agent request" : name,
      keyKind: name === "" ? "field" : `${name}'s field`,
      known: knownKeys(agentRequestSchema, issue.path),
      missingWhole: 'an object: the agent request, such as { cli: "claude" }',
    });
  });
  throw new AgentRequestError(`the agent request is invalid: ${problems.join("; ")}`);
}
