// The tools an MCP client is offered, each a name, what it does for the model that reads it, the
// zod schema of its arguments (which is also the JSON Schema the client lists) and what it does on
// a desk. run_agent's request fields are the service's own schema, so a Run is refused here exactly
// as POST /v1/runs refuses it; the tool adds only how inputs arrive and whether to wait.

import { isAbsolute } from "node:path";
import { z } from "zod";
import { AGENT_CLIS } from "../agents/index.js";
import { quote } from "../errors/index.js";
import { RUN_ID_PATTERN } from "../staging/index.js";
import type { DeskEvent, DeskInputs, RunDesk } from "./desk.js";
import { isRefusal } from "./desk.js";
import { MAX_ARTIFACT_READ_BYTES, MAX_EVENTS_PER_CALL, MAX_PATH_CHARACTERS } from "./limits.js";
import { followRun } from "./progress.js";

/** What a tool answers: a JSON value for the client (structuredContent) or a refusal. */
export type ToolAnswer = { readonly value: Readonly<Record<string, unknown>> } | { readonly refused: string; readonly message: string };

export type ToolContext = {
  readonly signal: AbortSignal;
  /** Tells the client of one event of the Run it waits for (a progress notification, when it asked for them). */
  readonly progress: (event: DeskEvent) => void;
};

export type Tool = {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodObject;
  readonly run: (args: Readonly<Record<string, unknown>>, context: ToolContext) => Promise<ToolAnswer>;
  /** Whether the tool only reads (a hint to the client; the desk decides what a key may do). */
  readonly readOnly: boolean;
};

const runId = z
  .string()
  .regex(RUN_ID_PATTERN, { error: (issue) => `id ${quote(issue.input)} is not a Run id; pass the id run_agent answered` })
  .describe("the Run's id, as run_agent answered it");

export function toolsOf(desk: RunDesk): readonly Tool[] {
  return [runAgent(desk), runStatus(desk), runEvents(desk), runCancel(desk), runArtifacts(desk), readArtifact(desk)];
}

function runAgent(desk: RunDesk): Tool {
  const inputs =
    desk.inputs === "directory"
      ? {
          inputs: z
            .string()
            .max(MAX_PATH_CHARACTERS)
            .refine(isAbsolute, { error: (issue) => `inputs ${quote(issue.input)} is not an absolute path; write the directory's full path on this machine` })
            .optional()
            .describe(
              "An absolute path of a directory on this machine: its files are copied (links left out) and the agent finds them in its working directory",
            ),
        }
      : {
          inputsArchive: z
            .base64({ error: (issue) => `inputsArchive ${quote(issue.input)} is not base64; send an uncompressed tar archive, base64-encoded` })
            .optional()
            .describe(
              "The agent's input files: an uncompressed tar archive (regular files and directories only), base64-encoded; the agent finds them in its working directory",
            ),
        };
  const schema = desk.requestSchema.extend({
    ...inputs,
    wait: z
      .boolean()
      .default(true)
      .describe("Default true: answer once the Run has ended, with its Outcome, sending progress notifications meanwhile; false: answer at once with its id"),
  });
  return {
    name: "run_agent",
    description:
      `Runs a coding agent (cli: ${AGENT_CLIS.join(" or ")}) on a prompt in a fresh locked-down container and answers its Outcome (result.text is the agent's answer). ` +
      "Input files go in with inputs; with writable: true the agent edits a copy of them and its changes come back as artifacts (changes.patch). " +
      "budget caps turns, tokens, cost and time. With wait: false it answers the Run's id at once: follow it with run_status or run_events.",
    schema,
    readOnly: false,
    run: async (args, context) => {
      const { inputs: directory, inputsArchive, wait, ...request } = args;
      const given: DeskInputs | undefined =
        typeof directory === "string" ? { directory } : typeof inputsArchive === "string" ? { archive: Buffer.from(inputsArchive, "base64") } : undefined;
      const submitted = await desk.submit(request, given);
      if (isRefusal(submitted)) return { refused: submitted.refused, message: submitted.message };
      if (wait !== true) return { value: submitted };
      await followRun(desk, submitted.id, context.progress, context.signal);
      return answered(await desk.status(submitted.id));
    },
  };
}

function runStatus(desk: RunDesk): Tool {
  return {
    name: "run_status",
    description: "A Run's state (queued, starting, running, completed, failed, cancelled), its place in the queue, and its Outcome once it has ended.",
    schema: z.strictObject({ id: runId }),
    readOnly: true,
    run: async (args) => answered(await desk.status(args["id"] as string)),
  };
}

function runEvents(desk: RunDesk): Tool {
  return {
    name: "run_events",
    description: `A Run's events after the id since (0: from the start), at most ${MAX_EVENTS_PER_CALL} a call: state changes, what the agent did, the end with its Outcome. Ask again with since: next for more.`,
    schema: z.strictObject({
      id: runId,
      since: z
        .number()
        .int({ error: (issue) => `since ${quote(issue.input)} is not a whole number; pass 0 or the next an earlier call answered` })
        .min(0, { error: (issue) => `since ${quote(issue.input)} is negative; pass 0 or the next an earlier call answered` })
        .default(0)
        .describe("Answer only events with a larger id; default 0: from the start"),
    }),
    readOnly: true,
    run: async (args) => {
      const since = args["since"] as number;
      const events = await desk.events(args["id"] as string);
      if (isRefusal(events)) return { refused: events.refused, message: events.message };
      const after = events.filter((event) => event.id > since);
      const page = after.slice(0, MAX_EVENTS_PER_CALL);
      const next = page.at(-1)?.id ?? since;
      return { value: { id: args["id"], events: page, next, more: after.length > page.length, ended: page.some((event) => event.type === "end") } };
    },
  };
}

function runCancel(desk: RunDesk): Tool {
  return {
    name: "run_cancel",
    description: "Ends a Run: a queued one at once, a running one through its container's stop; one that has ended is left as it is.",
    schema: z.strictObject({ id: runId }),
    readOnly: false,
    run: async (args) => answered(await desk.cancel(args["id"] as string)),
  };
}

function runArtifacts(desk: RunDesk): Tool {
  return {
    name: "run_artifacts",
    description: "The files a Run's Harvest took once it has ended, each with its size and sha256; with writable: true, what the agent changed.",
    schema: z.strictObject({ id: runId }),
    readOnly: true,
    run: async (args) => answered(await desk.artifacts(args["id"] as string)),
  };
}

function readArtifact(desk: RunDesk): Tool {
  return {
    name: "read_artifact",
    description: `One harvested file of a Run that has ended, by its path in run_artifacts: as text when it is UTF-8, else base64; at most ${MAX_ARTIFACT_READ_BYTES} bytes (truncated: true says it was cut).`,
    schema: z.strictObject({
      id: runId,
      path: z.string().min(1).max(MAX_PATH_CHARACTERS).describe("the file's path as run_artifacts lists it, e.g. out/report.md or changes.patch"),
    }),
    readOnly: true,
    run: async (args) => {
      const read = await desk.readArtifact(args["id"] as string, args["path"] as string, MAX_ARTIFACT_READ_BYTES);
      if (isRefusal(read)) return { refused: read.refused, message: read.message };
      const truncated = read.bytes.byteLength < read.size;
      const text = utf8(read.bytes, truncated);
      return {
        value: {
          id: args["id"],
          path: args["path"],
          size: read.size,
          truncated,
          ...(text === undefined ? { base64: Buffer.from(read.bytes).toString("base64") } : { text }),
        },
      };
    },
  };
}

function answered(value: Readonly<Record<string, unknown>>): ToolAnswer {
  return isRefusal(value) ? { refused: value.refused, message: value.message } : { value };
}

/** The bytes as text when they are UTF-8 (in a truncated file, a character cut short at the end is left out); undefined when they are not. */
function utf8(bytes: Uint8Array, truncated: boolean): string | undefined {
  for (let cut = 0; cut < (truncated ? 4 : 1) && cut <= bytes.byteLength; cut++) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, bytes.byteLength - cut));
    } catch {
      // A character cut short at the limit: try without its last bytes.
    }
  }
  return undefined;
}
