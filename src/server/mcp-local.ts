// The MCP server `agentcage mcp` speaks over stdio: the tools over an in-process service's own Runs
// (serve with listen: false), as its Operator, with input files named by a directory of this machine.

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { createMcpServer } from "../mcp/index.js";
import { OPERATOR } from "./caller.js";
import { serviceDesk } from "./mcp-desk.js";
import { agentcageVersion } from "../runner/index.js";
import type { RunningService } from "./serve.js";

export function localMcpServer(running: RunningService): Server {
  return createMcpServer(serviceDesk(running.service, OPERATOR, "directory"), { version: agentcageVersion() });
}
