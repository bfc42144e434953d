// The service's real app (every route, its parsers, auth and error answers) listening on a loopback
// port, over a RunService the test makes (the real one over a scripted runner, or a scripted one):
// HTTP as a client sends it, with no engine. Started in beforeAll, closed in afterAll.

import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import { buildApp } from "../../src/server/app.js";
import { openFeed } from "../../src/server/feed.js";
import { createRunMetrics } from "../../src/server/metrics.js";
import type { RunService } from "../../src/server/runs.js";
import { openTenancy } from "../../src/server/tenancy.js";

export type AppOnSocket = {
  /** `http://127.0.0.1:<port>`, once beforeAll has run. */
  readonly url: () => string;
  /** The start-up token: the Operator's, admin scope. */
  readonly token: string;
};

/** Registers beforeAll/afterAll that serve the app over `service()` (called in beforeAll) on a free loopback port. */
export function useAppOnSocket(name: string, service: () => Promise<RunService> | RunService): AppOnSocket {
  const scratch = mkdtempSync(join(tmpdir(), `agentcage-${name}-`));
  const token = `a-token-for-${name}`;
  let url = "";
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const app = await buildApp({
      service: await service(),
      token,
      tenancy: await openTenancy(scratch),
      feed: await openFeed(scratch),
      quotasOf: () => ({ maxRunning: 100, maxQueued: 100 }),
      readiness: async () => ({ ready: true, engine: true, image: true, credentials: {}, slots: { total: 1, running: 0, queued: 0 } }),
      facts: {
        version: "0.0.0",
        startedAt: new Date().toISOString(),
        agentImage: "agentcage-agent:latest",
        standIn: false,
        egress: async () => ({ networkPolicy: "none", proxy: "none" }),
      },
      logger: pino({ level: "silent" }),
      metrics: createRunMetrics(() => new Map()),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    close = () => app.close();
  });
  afterAll(async () => {
    await close?.();
    rmSync(scratch, { recursive: true, force: true });
  });
  return { url: () => url, token };
}
