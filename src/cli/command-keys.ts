// `agentcage keys create | ls | revoke`: the tenants' API keys on a service, for the Operator's
// token or an admin key. Invariant: a key's whole text is printed once, by create, and never again
// (ls and revoke name keys by prefix; revoke takes a whole key and drops its secret).

import { type Command, Option } from "commander";
import { expiryTime, tenantName } from "./admin-flags.js";
import { serviceOptions } from "./command-flags.js";
import type { ProgramIo } from "./io.js";
import type { KeyScope, ServiceFlags } from "./keys.js";

const SCOPES: readonly KeyScope[] = ["runs:read", "runs:write", "admin"];

const CREATE_HELP = `
stdout gets the key alone on a line (KEY=$(agentcage keys create --tenant ci) keeps it), and on a
terminal a line saying it is shown once; the service keeps only a hash of its secret.
Scopes: runs:read reads the tenant's Runs; runs:write also makes, cancels and deletes them; admin
does all of it for every tenant, and keys, tenants and the audit log.`;

export function addKeysCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  const keys = program.command("keys").description("a service's API keys: create, ls, revoke PREFIX (admin)");
  serviceOptions(keys.command("create").description("make an API key for a tenant; it is shown this once"), io.env)
    .requiredOption("--tenant <name>", "the tenant the key acts for (made with its first key)", tenantName("--tenant"))
    .addOption(new Option("--scope <scope>", "what the key may do").choices([...SCOPES]).default("runs:write"))
    .option("--expires <when>", "when it stops working: 30d, 12h, 90m from now, or a time such as 2027-01-31T00:00:00Z (default never)", expiryTime())
    .option("--json", "the service's whole answer as JSON, the key in it")
    .addHelpText("after", CREATE_HELP)
    .action(async (flags: ServiceFlags & { tenant: string; scope: KeyScope; expires?: string; json?: boolean }) => {
      const { createKey } = await import("./keys.js");
      settle(await createKey(flags, io));
    });
  serviceOptions(keys.command("ls").description("list the keys: prefix, tenant, scope, times; never a secret"), io.env)
    .option("--tenant <name>", "only this tenant's", tenantName("--tenant"))
    .option("--json", "as JSON")
    .action(async (flags: ServiceFlags & { tenant?: string; json?: boolean }) => {
      const { listKeys } = await import("./keys.js");
      settle(await listKeys(flags, io));
    });
  serviceOptions(
    keys.command("revoke").description("revoke a key at once: its next request is refused").argument("<prefix>", "the key's prefix (or the whole key)"),
    io.env,
  ).action(async (prefix: string, flags: ServiceFlags) => {
    const { revokeKey } = await import("./keys.js");
    settle(await revokeKey(prefix, flags, io));
  });
}
