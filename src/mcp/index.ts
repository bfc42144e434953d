/**
 * The MCP server: agentcage's Runs as tools an agent can call (run_agent, run_status, run_events,
 * run_cancel, run_artifacts, read_artifact), with progress notifications while a Run goes. It acts
 * on a desk, one caller's view of Runs: the service gives one per request on /mcp (its own Runs and
 * queue, the caller's tenant), `agentcage mcp` gives one over stdio.
 *
 * ```ts
 * const server = createMcpServer(desk, { version: "0.1.0" });
 * await server.connect(createStdioTransport());
 * ```
 */
export type { DeskInputs, DeskRefusal, RunDesk } from "./desk.js";
export { createMcpServer } from "./server.js";
export { createStdioTransport } from "./stdio-transport.js";
export * as mcpLimits from "./limits.js";
