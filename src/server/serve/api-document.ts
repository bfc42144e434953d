// The HTTP API's OpenAPI document, as GET /openapi.json serves it, made without an engine, a Run, a
// port or a disk: the app built over a service that answers nothing and the in-memory store's tenancy
// and feed. It is what the typed client (src/client) is generated from; a route that called its
// service while registering would fail here.

import { pino } from "pino";
import { buildApp } from "./app.js";
import { createMemoryFeed } from "../runs/index.js";
import { createRunMetrics } from "../metrics/index.js";
import type { RunService } from "../runs/index.js";
import { createMemoryTenancy } from "../tenancy/index.js";

/** /openapi.json as the service serves it. */
export async function apiDocument(): Promise<unknown> {
  // Registering routes asks the service nothing; a call would be a route that now does.
  const service = new Proxy({} as RunService, {
    get: (_target, name) => () => {
      throw new Error(`the API document was asked of a service that answers nothing, and a route called ${String(name)} while registering`);
    },
  });
  const app = await buildApp({
    service,
    token: "a-token-no-one-holds",
    tenancy: await createMemoryTenancy(),
    feed: await createMemoryFeed(),
    quotasOf: () => ({ maxRunning: 0, maxQueued: 0 }),
    readiness: async () => ({ ready: false, engine: false, image: false, credentials: {}, slots: { total: 0, running: 0, queued: 0 } }),
    facts: {
      version: "0.0.0",
      startedAt: new Date(0).toISOString(),
      agentImage: "",
      standIn: false,
      egress: async () => ({ networkPolicy: "none", proxy: "none" }),
    },
    logger: pino({ level: "silent" }),
    metrics: createRunMetrics(() => new Map()),
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}
