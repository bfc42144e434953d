// The MCP server `agentcage mcp` speaks over stdio: the tools over an in-process service's own Runs
// (serve with listen: false), as its Operator, with input files named by a directory of this machine.
// The service may still be starting (its stand-in, its egress proxy): the server answers the
// handshake at once, each tool waits for the start, and a start that failed is every tool's refusal,
// in its own sentence, never a server gone.

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AgentcageError, type ErrorCode } from "../../errors/index.js";
import { createMcpServer, type DeskRefusal, type RunDesk } from "../../mcp/index.js";
import { OPERATOR } from "../caller.js";
import { serviceDesk } from "../http/index.js";
import { agentcageVersion } from "../../runner/index.js";
import { runRequestSchema } from "../http/index.js";
import type { RunningService } from "./serve.js";

/** The server over `running`: a service, or one being started (its failure then answers every tool call). */
export function localMcpServer(running: RunningService | Promise<RunningService>): Server {
  return createMcpServer(startingDesk(Promise.resolve(running)), { version: agentcageVersion() });
}

/** A desk that waits for the service's start, then is its desk; once the start failed, it refuses every call with why. */
function startingDesk(running: Promise<RunningService>): RunDesk {
  let ready: RunDesk | undefined;
  const desk: Promise<RunDesk | DeskRefusal> = running.then(
    ({ service }) => (ready = serviceDesk(service, OPERATOR, "directory")),
    (error: unknown) => startRefusal(error),
  );
  /** `call` on the desk once it is there; the start's refusal when it failed. */
  const when =
    <A extends unknown[], R>(call: (desk: RunDesk, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | DeskRefusal> => {
      const there = await desk;
      return "refused" in there ? there : call(there, ...args);
    };
  return {
    requestSchema: runRequestSchema,
    inputs: "directory",
    submit: when((there, request, inputs) => there.submit(request, inputs)),
    status: when((there, id) => there.status(id)),
    events: when((there, id) => there.events(id)),
    // A Run is listened to only once submit answered it, so the desk is there by then.
    listen: (id, listener) => ready?.listen(id, listener) ?? (() => undefined),
    cancel: when((there, id) => there.cancel(id)),
    artifacts: when((there, id) => there.artifacts(id)),
    readArtifact: when((there, id, path, maxBytes) => there.readArtifact(id, path, maxBytes)),
  };
}

/** Why the service could not start, as a tool's refusal: its code (serve_refused for what it started), and its sentence. */
function startRefusal(error: unknown): DeskRefusal {
  const code: ErrorCode = error instanceof AgentcageError ? error.code : "internal";
  const message = error instanceof Error ? error.message : String(error);
  return { refused: code, message: `agentcage mcp could not start what its Runs need, so it runs none: ${message}; mend that and start agentcage mcp again` };
}
