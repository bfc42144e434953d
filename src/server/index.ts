/**
 * The orchestrator service: the one process that holds the container engine and runs agents for
 * others over HTTP (`agentcage serve`), on the library: Runs, resumable events, cancel, health,
 * A2A and MCP (`/mcp`); `localMcpServer` is the MCP server over a service started with
 * `listen: false`, for `agentcage mcp` on stdio.
 *
 * ```ts
 * const running = await serve({ runtimeDir: "/srv/agentcage", standIn: true, port: 0 });
 * // or each Run as a Pod: serve({ runtimeDir, kubernetes: { api: await createKubeApi(), namespace: "agents" } })
 * console.log(running.url); // POST /v1/runs with Authorization: Bearer <token>
 * await running.stop();
 * ```
 */
export { apiDocument } from "./serve/index.js";
export type { RunningService } from "./serve/index.js";
export { serve } from "./serve/index.js";
export type { ServeOptions } from "./serve/index.js";
export { checkServeOptions, ServeError } from "./serve/index.js";
export { serveRefusal } from "./serve/index.js";
export type { RunRecord } from "./runs/index.js";
export { readFileRunStore } from "./runs/index.js";
export { localMcpServer } from "./serve/index.js";
