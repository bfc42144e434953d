// `agentcage tenants ls | show NAME | set NAME`: a service's tenants, their quotas, callback URL and
// webhook secret, for the Operator's token or an admin key. A quota set to `default` goes back to
// the service's own (serve's --tenant-* options); `--callback-url none` removes the tenant's.

import type { Command } from "commander";
import { callbackUrl, quotaCount, quotaDollars, tenantName } from "./admin-flags.js";
import { serviceOptions } from "./command-flags.js";
import type { ProgramIo } from "./io.js";
import type { ServiceFlags } from "./keys.js";
import type { TenantFlags } from "./tenants.js";

export function addTenantsCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  const tenants = program.command("tenants").description("a service's tenants and their quotas: ls, show NAME, set NAME (admin)");
  serviceOptions(tenants.command("ls").description("list the tenants and the quotas that hold for each"), io.env)
    .option("--json", "as JSON")
    .action(async (flags: ServiceFlags & { json?: boolean }) => {
      const { listTenants } = await import("./tenants.js");
      settle(await listTenants(flags, io));
    });
  serviceOptions(
    tenants.command("show").description("one tenant: its quotas, callback URL and webhook secret").argument("<name>", "the tenant", tenantName("NAME")),
    io.env,
  )
    .option("--json", "as JSON")
    .action(async (name: string, flags: ServiceFlags & { json?: boolean }) => {
      const { showTenant } = await import("./tenants.js");
      settle(await showTenant(name, flags, io));
    });
  serviceOptions(
    tenants
      .command("set")
      .description("make a tenant, or change its quotas, its callback URL or its webhook secret")
      .argument("<name>", "the tenant", tenantName("NAME")),
    io.env,
  )
    .option("--max-running <n>", "its Runs running at once, or default", quotaCount("--max-running", 10_000, "how many of its Runs may run at once"))
    .option("--max-queued <n>", "its Runs accepted and not ended, or default", quotaCount("--max-queued", 1_000_000, "how many of its Runs may wait or run"))
    .option("--daily-spend-usd <usd>", "what its Runs may cost per UTC day, or default", quotaDollars("--daily-spend-usd"))
    .option("--callback-url <url>", "where its Runs' webhooks go when a Run names none, or none", callbackUrl)
    .option("--rotate-webhook-secret", "make a new webhook secret (the old one stops signing at once) and print it")
    .option("--json", "as JSON")
    .action(async (name: string, flags: TenantFlags) => {
      const { setTenant } = await import("./tenants.js");
      settle(await setTenant(name, flags, io));
    });
}
