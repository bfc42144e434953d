// What an A2A message asks for, as a Run: its text and data parts are the prompt, and its metadata
// names the agent (`cli`, default claude), the agent request's other fields and an output schema.
// Decided from the message alone and validated by the same schema as POST /v1/runs, so a message
// the service cannot run is refused before any task exists, naming the field.

import type { Message } from "@a2a-js/sdk";
import { compileOutputSchema, type OutputSchema } from "./a2a-answer.js";
import { MAX_MESSAGE_ID_CHARACTERS } from "../a2a-limits.js";
import type { ServiceRunRequest } from "../runs/index.js";
import { runRequestSchema } from "../http/index.js";
import { issueSentence, knownKeys, valueAt } from "../../errors/index.js";
import { DEFAULT_AGENT_CLI } from "../../agents/index.js";

/** The message metadata fields that become the agent request's; others are left to other readers. */
export const RUN_METADATA_FIELDS = ["cli", "model", "effort", "maxTurns", "timeoutSeconds", "systemPrompt", "web", "noTools", "resumeSession"] as const;

/** Labels every Run made through A2A carries, so GET /v1/runs?label=via%3Da2a finds them. */
export const A2A_RUN_LABELS: Readonly<Record<string, string>> = { via: "a2a" };

export type A2ARunRequest = {
  readonly run: ServiceRunRequest;
  /** The Run's idempotency key: a retried message (same messageId) gets the same Run. */
  readonly idempotencyKey: string;
  readonly output?: OutputSchema;
};

/** Why a message sent by a caller cannot be run, or undefined when it can. */
export function refusalOf(message: Message | undefined): string | undefined {
  if (message !== undefined && message.taskId !== "") {
    return `message.taskId ${JSON.stringify(message.taskId)} is set, but each task here is one Run of one message; send a new message without taskId`;
  }
  const asked = runRequestOf(message);
  return typeof asked === "string" ? asked : undefined;
}

/** The Run a message asks for (its taskId aside: the SDK sets it), or one sentence saying what to change. */
export function runRequestOf(message: Message | undefined): A2ARunRequest | string {
  if (message === undefined) return "the request has no message; send one with a text part";
  if (message.messageId.length > MAX_MESSAGE_ID_CHARACTERS) {
    return `message.messageId is ${message.messageId.length} characters, over ${MAX_MESSAGE_ID_CHARACTERS} (MAX_MESSAGE_ID_CHARACTERS); send a shorter id, such as a UUID`;
  }
  const texts: string[] = [];
  for (const [index, part] of message.parts.entries()) {
    if (part.content?.$case === "text") texts.push(part.content.value);
    else if (part.content?.$case === "data") texts.push(JSON.stringify(part.content.value, null, 2));
    else return `message.parts[${index}] is a ${part.content?.$case ?? "empty"} part; this agent reads text and data parts only`;
  }
  const prompt = texts.join("\n\n");
  if (prompt.trim() === "") return "the message has no text; write the task in a text part";

  const metadata: Readonly<Record<string, unknown>> = message.metadata ?? {};
  const fields = Object.fromEntries(RUN_METADATA_FIELDS.filter((name) => metadata[name] !== undefined).map((name) => [name, metadata[name]]));
  const parsed = runRequestSchema.safeParse({ cli: DEFAULT_AGENT_CLI, ...fields, prompt, labels: A2A_RUN_LABELS });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const [first] = issue.path;
      const name = first === "prompt" ? "the message's text" : `metadata.${issue.path.map(String).join(".")}`;
      // A schema's own words name the field as the HTTP API knows it; here it sits in the metadata.
      const ownWords = (sentence: string) => (sentence === issue.message && first !== "prompt" ? `${name}: ${sentence}` : sentence);
      return ownWords(
        issueSentence(issue, {
          name,
          value: valueAt({ ...fields, prompt }, issue.path),
          taker: issue.path.length === 0 ? "the message's metadata" : name,
          keyKind: issue.path.length === 0 ? "metadata field" : `${name}'s field`,
          known: knownKeys(runRequestSchema, issue.path),
        }),
      );
    });
    return problems.join("; ");
  }
  const idempotencyKey = `a2a-message:${message.messageId}`;
  if (metadata["outputSchema"] === undefined) return { run: parsed.data, idempotencyKey };
  const output = compileOutputSchema(metadata["outputSchema"]);
  return typeof output === "string" ? output : { run: parsed.data, idempotencyKey, output };
}
