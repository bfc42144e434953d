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
export { apiDocument } from "./api-document.js";
export type { RunningService } from "./serve.js";
export { serve } from "./serve.js";
export type { ServeOptions } from "./serve-options.js";
export { checkServeOptions, ServeError } from "./serve-options.js";
export { serveRefusal } from "./serve-kubernetes.js";
export type { RunRecord } from "./store.js";
export { readFileRunStore } from "./store-files.js";
export { localMcpServer } from "./mcp-local.js";
