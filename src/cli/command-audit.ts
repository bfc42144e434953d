// `agentcage audit`: a service's audit log since a time, one line an entry, for the Operator's
// token or an admin key. The entries name actors by tenant and key prefix; they hold no secret.

import type { Command } from "commander";
import { sinceTime } from "./admin-flags.js";
import { serviceOptions } from "./command-flags.js";
import type { ProgramIo } from "./io.js";
import type { AuditFlags } from "./audit.js";
import { wholeNumber } from "./options.js";

/** The most one read answers (the service's MAX_AUDIT_ENTRIES). */
const MAX_ENTRIES = 10_000;

export function addAuditCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  serviceOptions(
    program.command("audit").description("the service's audit log: who made, cancelled, deleted Runs, keys and tenants, and refusals (admin)"),
    io.env,
  )
    .option("--since <when>", "from this long ago (1h, 2d, 90m) or this time (2026-12-01T00:00:00Z); default the last 24 hours", sinceTime())
    .option("--limit <n>", `at most the newest this many (up to ${MAX_ENTRIES})`, wholeNumber("--limit", 1, MAX_ENTRIES))
    .option("--json", "the entries as JSON")
    .action(async (flags: AuditFlags) => {
      const { readAudit } = await import("./audit.js");
      settle(await readAudit(flags, io));
    });
}
