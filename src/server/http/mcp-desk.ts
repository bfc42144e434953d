// The MCP tools' desk over the service's own Runs, as one caller sees them (tenant-runs.ts): the
// same submit, queue, quotas, refusals, events, cancel and artifacts as the HTTP routes, through the
// same functions. Input files arrive as a tar archive (HTTP) or a directory of this machine packed
// into one (stdio), and either way are extracted under the same limits as a multipart upload.

import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { quote } from "../../errors/index.js";
import type { DeskInputs, DeskRefusal, RunDesk } from "../../mcp/index.js";
import { extractInputs, InputsError, openArtifact, packInputs } from "../../staging/index.js";
import { artifactsOf, notEndedMessage } from "./artifacts.js";
import { allows, type Caller } from "../caller.js";
import { uploadDeadline } from "./inputs.js";
import { submitRefusal } from "./route-submit.js";
import { runView } from "./route-view.js";
import type { InputsWriter, RunService, ServiceRunRequest } from "../runs/index.js";
import { runRequestSchema } from "./schemas.js";
import { TERMINAL_STATES } from "../runs/index.js";
import { runsFor } from "../runs/index.js";

const NOT_FOUND: DeskRefusal = { refused: "not_found", message: "no Run with that id; pass an id run_agent answered" };

/** What a tool did to a Run, for the audit log: made it, cancelled it, read its artifacts, and how that went (a status, or the refusal's code). */
export type McpAct = (action: "run.create" | "run.cancel" | "run.artifacts", runId: string | undefined, result: number | string) => void;

/** A desk over `all` as `caller` sees it; `inputs` says how its input files arrive; `acted` hears what it did. */
export function serviceDesk(all: RunService, caller: Caller, inputs: RunDesk["inputs"], acted: McpAct = () => undefined): RunDesk {
  const service = runsFor(all, caller);
  /** Tells `acted` how an answer went, and answers it. */
  const told = <T extends object>(action: Parameters<McpAct>[0], runId: string | undefined, answer: T): T => {
    acted(action, runId, "refused" in answer ? (answer as unknown as DeskRefusal).refused : 200);
    return answer;
  };
  const forbidden = (what: string): DeskRefusal | undefined =>
    allows(caller, "runs:write")
      ? undefined
      : { refused: "forbidden", message: `this key's scope ${caller.scope} does not allow ${what}; it needs runs:write: ask the Operator for such a key` };
  const ended = async (id: string): Promise<string | DeskRefusal> => {
    const record = await service.get(id);
    if (record === undefined) return NOT_FOUND;
    if (!TERMINAL_STATES.has(record.state)) return { refused: "not_ended", message: notEndedMessage(id, record.state) };
    return service.harvestDirectory(id);
  };
  return {
    requestSchema: runRequestSchema,
    inputs,
    submit: async (request, given) => {
      const refused = forbidden("run_agent");
      if (refused !== undefined) return told("run.create", undefined, refused);
      const writer = given === undefined ? undefined : await inputsWriter(given);
      if (writer !== undefined && "refused" in writer) return told("run.create", undefined, writer);
      try {
        const submitted = await service.submit(request as ServiceRunRequest, undefined, writer);
        if (typeof submitted !== "string" && "record" in submitted) {
          acted("run.create", submitted.record.id, 202);
          return runView(service, submitted.record);
        }
        const { error, message } = submitRefusal(submitted, undefined);
        return told("run.create", undefined, { refused: error, message });
      } catch (error) {
        if (error instanceof InputsError) return told("run.create", undefined, { refused: error.code, message: error.message });
        throw error;
      }
    },
    status: async (id) => {
      const record = await service.get(id);
      return record === undefined ? NOT_FOUND : runView(service, record);
    },
    events: async (id) => ((await service.get(id)) === undefined ? NOT_FOUND : service.events(id)),
    listen: (id, listener) => service.listen(id, listener),
    cancel: async (id) => {
      const refused = forbidden("run_cancel");
      if (refused !== undefined) return told("run.cancel", id, refused);
      const record = await service.cancel(id);
      acted("run.cancel", id, record?.state ?? "not_found");
      return record === undefined ? NOT_FOUND : runView(service, record);
    },
    artifacts: async (id) => {
      const root = await ended(id);
      return told("run.artifacts", id, typeof root === "string" ? await artifactsOf(service, id, root) : root);
    },
    readArtifact: async (id, path, maxBytes) => {
      const root = await ended(id);
      if (typeof root !== "string") return told("run.artifacts", id, root);
      const opened = await openArtifact(root, path);
      if (opened === undefined)
        return told("run.artifacts", id, { refused: "not_found", message: `the Harvest has no file ${quote(path)}; list them with run_artifacts` });
      if ("refused" in opened) return told("run.artifacts", id, { refused: "invalid_request", message: opened.refused });
      acted("run.artifacts", id, 200);
      try {
        const bytes = Buffer.alloc(Math.min(maxBytes, opened.size));
        const { bytesRead } = await opened.handle.read(bytes, 0, bytes.byteLength, 0);
        return { bytes: bytes.subarray(0, bytesRead), size: opened.size };
      } finally {
        await opened.handle.close();
      }
    },
  };
}

/** Extracts the given inputs into a Run's directory as an upload is: an archive as it came, a directory packed first (links left out, a hard link refused). */
async function inputsWriter(given: DeskInputs): Promise<InputsWriter | DeskRefusal> {
  if ("archive" in given) return (directory) => extractInputs(Readable.from([given.archive]), directory, { signal: uploadDeadline() });
  const found = await stat(given.directory).catch(() => undefined);
  if (found?.isDirectory() !== true) {
    return {
      refused: "invalid_request",
      message: `inputs ${quote(given.directory)} is not a directory on this machine; write the full path of the directory the agent should get`,
    };
  }
  return (directory) => extractInputs(packInputs(given.directory), directory, { signal: uploadDeadline() });
}
