// The MCP server over a desk: the official SDK's protocol Server with two handlers, tools/list and
// tools/call. Arguments are validated here with each tool's zod schema and refused in the project's
// words (the parameter named, its value quoted, what to send instead); a refusal is a tool result
// with isError, never a protocol error, so the calling model reads it and can correct itself.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { issueSentence, knownKeys, quote, valueAt } from "../errors/index.js";
import type { RunDesk } from "./desk.js";
import { progressLine } from "./progress.js";
import { type Tool, type ToolAnswer, toolsOf } from "./tools.js";

export type McpServerOptions = {
  /** agentcage's version, told to the client at initialize. */
  readonly version: string;
};

/** An MCP server whose tools act on `desk`; connect it to a transport (stdio, streamable HTTP). */
export function createMcpServer(desk: RunDesk, options: McpServerOptions): Server {
  const server = new Server(
    { name: "agentcage", version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        "agentcage runs a coding agent (claude or codex) in a fresh locked-down container per Run. Hand it a task with run_agent; read its files back with run_artifacts and read_artifact.",
    },
  );
  const tools = toolsOf(desk);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (tool === undefined) {
      return refusal("invalid_request", `there is no tool ${quote(request.params.name)}; call one of ${tools.map((known) => known.name).join(", ")}`);
    }
    const args = request.params.arguments ?? {};
    const parsed = tool.schema.safeParse(args);
    if (!parsed.success) return refusal("invalid_request", argumentsRefusal(tool, args, parsed.error.issues));
    const token = request.params._meta?.progressToken;
    let progress = 0;
    const answer = await tool.run(parsed.data, {
      signal: extra.signal,
      progress: (event) => {
        if (token === undefined) return;
        progress += 1;
        void extra
          .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message: progressLine(event) } })
          .catch(() => undefined);
      },
    });
    return resultOf(answer);
  });
  return server;
}

function listed(tool: Tool): ListedTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" }) as ListedTool["inputSchema"],
    annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
  };
}

function resultOf(answer: ToolAnswer): CallToolResult {
  if ("refused" in answer) return refusal(answer.refused, answer.message);
  return { content: [{ type: "text", text: JSON.stringify(answer.value, null, 2) }], structuredContent: answer.value };
}

function refusal(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: `${code}: ${message}` }], structuredContent: { error: code, message }, isError: true };
}

/** The first problem with a tool's arguments as one sentence (and how many more there are). */
function argumentsRefusal(tool: Tool, args: unknown, issues: readonly z.core.$ZodIssue[]): string {
  const sentences = issues.map((issue) => {
    const name = issue.path.length === 0 ? `${tool.name}'s arguments` : issue.path.map(String).join(".");
    return issueSentence(issue, {
      name,
      value: valueAt(args, issue.path),
      taker: issue.path.length === 0 ? tool.name : name,
      keyKind: issue.path.length === 0 ? "parameter" : `${name}'s field`,
      known: knownKeys(tool.schema, issue.path),
      otherwise: `; see ${tool.name}'s input schema in tools/list`,
    });
  });
  const more = sentences.length > 1 ? ` (and ${sentences.length - 1} more problem${sentences.length === 2 ? "" : "s"} after it)` : "";
  return `${sentences[0] ?? `the arguments are not what ${tool.name} takes`}${more}`;
}
