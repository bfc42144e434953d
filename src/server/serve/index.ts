// The service's assembly: options, the store chosen, runners, the listener, sweeps and the app.
// Invariant: exports only, no code; nothing else in the service imports it.
export { apiDocument } from "./api-document.js";
export { buildApp } from "./app.js";
export { localMcpServer } from "./mcp-local.js";
export { serveRefusal } from "./serve-kubernetes.js";
export type { ServeOptions } from "./serve-options.js";
export { ServeError, checkServeOptions } from "./serve-options.js";
export type { RunningService } from "./serve.js";
export { serve } from "./serve.js";
export { openFileStore } from "./service-store.js";
