// `agentcage doctor --remote`: the running service asked what makes it less than it says (GET
// /v1/service's `degraded`), through agentcage/client with the token the admin commands show.
// Invariant: never throws; a service that cannot be asked is a report saying why, and no token is in it.

import { ServiceError } from "../client/index.js";
import type { ServiceReport } from "./doctor-checks.js";
import { connectService } from "./service-client.js";

/** What the service at `remote` says of itself; `runtimeDir` is where a serve on loopback wrote its token. */
export async function askServiceState(remote: string, runtimeDir: string, env: Readonly<Record<string, string | undefined>>): Promise<ServiceReport> {
  try {
    const service = await connectService({ remote, runtimeDir }, env);
    const state = await service.client.service();
    return { ok: true, url: service.base.origin, version: state.version, ready: state.ready, degraded: state.degraded };
  } catch (error) {
    const said =
      error instanceof ServiceError && error.status === 401
        ? `it refused the token (${error.message})`
        : error instanceof Error
          ? error.message
          : String(error);
    return { ok: false, url: remote, error: `the service at ${remote} could not be asked: ${said}` };
  }
}
