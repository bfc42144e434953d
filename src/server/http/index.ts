// The HTTP face: routes, authentication, schemas, SSE, the console and the MCP desk over the Runs.
// Invariant: exports only, no code; the service's assembly (serve/) is the one caller.
export { registerArtifactRoutes } from "./artifacts.js";
export { registerAuth, unauthorized } from "./auth.js";
export { registerConsole } from "./console.js";
export { registerEventRoutes } from "./events.js";
export type { Readiness } from "./health.js";
export { registerHealthRoutes } from "./health.js";
export { TOO_DEEP, bodyRefusal, nestsTooDeeply } from "./json-body.js";
export type { KeyStreams } from "./key-streams.js";
export { createKeyStreams, keyEndedRpcError } from "./key-streams.js";
export { serviceDesk } from "./mcp-desk.js";
export type { ValidationContext } from "./refusals.js";
export { refusalOf } from "./refusals.js";
export { registerAuditRoute } from "./route-audit.js";
export { registerFeedRoute } from "./route-feed.js";
export { registerKeyRoutes } from "./route-keys.js";
export { registerMcpRoute } from "./route-mcp.js";
export { registerPoolRoute } from "./route-pool.js";
export type { ServiceFacts } from "./route-service.js";
export { registerServiceRoute } from "./route-service.js";
export { registerTenantRoutes } from "./route-tenants.js";
export { registerUsageRoute } from "./route-usage.js";
export { registerRunRoutes } from "./routes.js";
export { ARTIFACT_PATH_HELP, errorBody, runRequestSchema } from "./schemas.js";
export { egressView } from "./service-egress.js";
