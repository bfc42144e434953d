// /mcp: the MCP server over streamable HTTP, behind the same bearer check as every route. Stateless:
// each POST gets its own MCP server over a desk of the caller's tenant (mcp-desk.ts) and its own
// transport, which answers in SSE when the client takes it, so progress notifications stream while
// run_agent waits. GET and DELETE (a server-initiated stream, a session's end) have nothing to
// serve without sessions: 405, as the transport's specification allows. A POST still open when its key
// is revoked or expires is answered at once: each request it carries gets a JSON-RPC error saying why.

import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyInstance } from "fastify";
import { createMcpServer } from "../../mcp/index.js";
import type { AuditLog } from "../tenancy/index.js";
import { MAX_MCP_BODY_BYTES, MCP_PATH } from "../limits.js";
import { serviceDesk } from "./mcp-desk.js";
import type { RunService } from "../runs/index.js";
import { errorBody } from "./schemas.js";
import { unauthorized } from "./auth.js";
import { keyEndedRpcError, type KeyStreams } from "./key-streams.js";

export function registerMcpRoute(app: FastifyInstance, service: RunService, audit: AuditLog, version: string, streams: KeyStreams): void {
  app.post(MCP_PATH, { schema: { hide: true }, bodyLimit: MAX_MCP_BODY_BYTES }, async (request, reply) => {
    const { caller } = request;
    // What a tool did is audited as the routes' own are, its target saying it came over MCP.
    const desk = serviceDesk(service, caller, "archive", (action, runId, result) =>
      audit.record({ action, tenant: caller.tenant, key: caller.key, ...(runId === undefined ? {} : { runId }), target: "MCP", result, remote: request.ip }),
    );
    const server = createMcpServer(desk, { version });
    const transport = new StreamableHTTPServerTransport({});
    const res = reply.raw;
    // Held until it is answered: revoking the key, or its expiry, answers each request still open with
    // why, through the transport (which then ends its stream), and cuts what could not be answered so.
    const release = streams.hold(caller, (why) => {
      const error = keyEndedRpcError(why);
      const answered = requestIdsOf(request.body).map((id) => transport.send({ jsonrpc: "2.0", id, error }, { relatedRequestId: id }));
      void Promise.all(answered).then(close, () => {
        close();
        res.destroy();
      });
    });
    if (typeof release === "string") return unauthorized(reply, release);
    const close = () => {
      release();
      void transport.close();
      void server.close();
    };
    reply.hijack();
    res.on("close", close);
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const notHere = errorBody(
    "invalid_request",
    "this MCP endpoint keeps no sessions: POST each JSON-RPC message to /mcp (streamable HTTP); there is no stream to GET and no session to DELETE",
  );
  for (const method of ["GET", "DELETE"] as const) {
    app.route({ method, url: MCP_PATH, schema: { hide: true }, handler: async (_request, reply) => reply.code(405).header("allow", "POST").send(notHere) });
  }
}

/** The ids of the requests a POST carries (one message or a batch): each is answered with an error when the key ends. */
function requestIdsOf(body: unknown): Array<string | number> {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? [id] : [];
  });
}
