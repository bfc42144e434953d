// `agentcage audit`: the entries GET /v1/audit answers, oldest first, one line each: time, action,
// tenant, key prefix, Run, target, result, remote address, and for folded refusals how many.

import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import type { ServiceFlags } from "./keys.js";
import { answered, askService, connectService } from "./service-client.js";
import { cell, table } from "./table.js";

export type AuditFlags = ServiceFlags & { readonly since?: string; readonly limit?: number; readonly json?: boolean };

export async function readAudit(flags: AuditFlags, io: ProgramIo): Promise<number> {
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const query = { ...(flags.since === undefined ? {} : { since: flags.since }), ...(flags.limit === undefined ? {} : { limit: flags.limit }) };
    const { entries } = await askService(service, "GET /v1/audit", (api, signal) => api.GET("/v1/audit", { params: { query }, signal }));
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      return EXIT.completed;
    }
    if (entries.length === 0) {
      io.stderr.write(`no audit entries ${flags.since === undefined ? "in the last 24 hours" : `since ${flags.since}`}\n`);
      return EXIT.completed;
    }
    const rows = entries.map((e) => [e.time, e.action, e.tenant, e.key, e.runId, e.target, String(e.result), e.remote, e.count].map(cell));
    io.stdout.write(table(["TIME", "ACTION", "TENANT", "KEY", "RUN", "TARGET", "RESULT", "REMOTE", "COUNT"], rows));
    return EXIT.completed;
  });
}
