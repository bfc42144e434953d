// Closing the proxy: every Run is revoked first (its token dies, its calls and tunnels are cut and
// metered), then the server stops listening and drops its connections, then the pools upstream.
// Invariant: once closed, nothing of the proxy is left open to hold the process alive.

import { once } from "node:events";
import type { Server } from "node:http";
import type { ProxyState } from "./proxy-state.js";
import { revokeRun } from "./run-registry.js";

export async function closeProxy(state: ProxyState, server: Server): Promise<void> {
  for (const runId of [...state.runs.keys()]) revokeRun(state, runId);
  const closed = once(server, "close");
  server.close();
  server.closeAllConnections();
  state.agents.http.destroy();
  state.agents.https.destroy();
  await closed;
}
