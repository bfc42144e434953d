// `agentcage keys`: what the service answers about its API keys, printed. A key's whole text goes
// to stdout once, when it is made (alone on its line when stdout is not a terminal, so a script can
// take it); the note beside it, and everything else, names a key by its prefix only.

import { keyPrefix } from "./admin-flags.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import { printable } from "./progress.js";
import { answered, askService, connectService } from "./service-client.js";
import { cell, table, when } from "./table.js";

export type ServiceFlags = { readonly remote: string; readonly runtimeDir: string };
/** What a key may do; --scope offers exactly these. */
export type KeyScope = "runs:read" | "runs:write" | "admin";

export async function createKey(
  flags: ServiceFlags & { readonly tenant: string; readonly scope: KeyScope; readonly expires?: string; readonly json?: boolean },
  io: ProgramIo,
): Promise<number> {
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const body = { tenant: flags.tenant, scope: flags.scope, ...(flags.expires === undefined ? {} : { expiresAt: flags.expires }) };
    const made = await askService(service, "POST /v1/keys", (api, signal) => api.POST("/v1/keys", { body, signal }));
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(made, null, 2)}\n`);
      return EXIT.completed;
    }
    const note = `the key above is shown this once (the service keeps only a hash of it); its prefix ${made.prefix} names it in agentcage keys ls and revoke`;
    io.stdout.write(`${printable(made.key)}\n`);
    const said = `key ${made.prefix}: tenant ${made.tenant}, scope ${made.scope}, ${made.expiresAt === undefined ? "does not expire" : `expires ${when(made.expiresAt)}`}`;
    // On a terminal a person reads it all; piped, stdout is the key alone and the rest goes to stderr.
    (io.stdout.isTTY === true ? io.stdout : io.stderr).write(`${printable(said)}\n${note}\n`);
    return EXIT.completed;
  });
}

export async function listKeys(flags: ServiceFlags & { readonly tenant?: string; readonly json?: boolean }, io: ProgramIo): Promise<number> {
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const query = flags.tenant === undefined ? {} : { tenant: flags.tenant };
    const { keys } = await askService(service, "GET /v1/keys", (api, signal) => api.GET("/v1/keys", { params: { query }, signal }));
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      return EXIT.completed;
    }
    if (keys.length === 0) {
      io.stderr.write(`no keys${flags.tenant === undefined ? "" : ` of tenant ${flags.tenant}`} at ${service.base.origin}\n`);
      return EXIT.completed;
    }
    const rows = keys.map((k) => [k.prefix, k.tenant, k.scope, when(k.createdAt), when(k.expiresAt), when(k.lastUsedAt), when(k.revokedAt)].map(cell));
    io.stdout.write(table(["PREFIX", "TENANT", "SCOPE", "CREATED", "EXPIRES", "LAST USE", "REVOKED"], rows));
    return EXIT.completed;
  });
}

export async function revokeKey(given: string, flags: ServiceFlags, io: ProgramIo): Promise<number> {
  const prefix = keyPrefix(given);
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const revoked = await askService(service, `DELETE /v1/keys/${prefix}`, (api, signal) =>
      api.DELETE("/v1/keys/{prefix}", { params: { path: { prefix } }, signal }),
    );
    io.stdout.write(
      `${printable(`key ${revoked.prefix} of tenant ${revoked.tenant} is revoked (since ${when(revoked.revokedAt)}); its next request is refused`)}\n`,
    );
    return EXIT.completed;
  });
}
