// `agentcage tenants`: what the service answers about its tenants, printed. A quota shows what holds
// now, marked when it is the service's default; the webhook secret is shown by `show`, and by `set`
// only when it was just rotated (the receiver needs the new one).

import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import type { ServiceFlags } from "./keys.js";
import { answered, askService, connectService } from "./service-client.js";
import { cell, table, when } from "./table.js";

export type TenantFlags = ServiceFlags & {
  /** "default": back to the service's own (sent as null). */
  readonly maxRunning?: number | "default";
  readonly maxQueued?: number | "default";
  readonly dailySpendUsd?: number | "default";
  /** "none": no callback URL of its own (sent as null). */
  readonly callbackUrl?: string;
  readonly rotateWebhookSecret?: boolean;
  readonly json?: boolean;
};

type Quotas = { readonly maxRunning?: number; readonly maxQueued?: number; readonly dailySpendUsd?: number };
type Tenant = {
  readonly name: string;
  readonly createdAt: string;
  readonly quotas: Quotas;
  readonly effectiveQuotas: Quotas;
  readonly callbackUrl?: string;
  readonly webhookSecret?: string;
};

/** A quota as it holds now, "(default)" when the tenant has none of its own. */
function quota(tenant: Tenant, name: keyof Quotas, show: (n: number) => string = String): string {
  const holds = tenant.effectiveQuotas[name];
  return `${holds === undefined ? "none" : show(holds)}${tenant.quotas[name] === undefined ? " (default)" : ""}`;
}

const usd = (n: number) => `$${n.toFixed(2)}`;

export async function listTenants(flags: ServiceFlags & { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const { tenants } = await askService(service, "GET /v1/tenants", (api, signal) => api.GET("/v1/tenants", { signal }));
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(tenants, null, 2)}\n`);
      return EXIT.completed;
    }
    const rows = tenants.map((t) =>
      [t.name, quota(t, "maxRunning"), quota(t, "maxQueued"), quota(t, "dailySpendUsd", usd), t.callbackUrl, when(t.createdAt)].map(cell),
    );
    io.stdout.write(table(["TENANT", "MAX RUNNING", "MAX QUEUED", "DAILY SPEND", "CALLBACK URL", "CREATED"], rows));
    return EXIT.completed;
  });
}

export async function showTenant(name: string, flags: ServiceFlags & { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const tenant = await askService(service, `GET /v1/tenants/${name}`, (api, signal) => api.GET("/v1/tenants/{name}", { params: { path: { name } }, signal }));
    io.stdout.write(flags.json === true ? `${JSON.stringify(tenant, null, 2)}\n` : described(tenant, true));
    return EXIT.completed;
  });
}

export async function setTenant(name: string, flags: TenantFlags, io: ProgramIo): Promise<number> {
  const service = await connectService(flags, io.env);
  const given = <K extends "maxRunning" | "maxQueued" | "dailySpendUsd" | "callbackUrl">(key: K) => {
    const value = flags[key];
    return value === undefined ? {} : { [key]: value === "default" || value === "none" ? null : value };
  };
  const body = {
    ...given("maxRunning"),
    ...given("maxQueued"),
    ...given("dailySpendUsd"),
    ...given("callbackUrl"),
    ...(flags.rotateWebhookSecret === true ? { rotateWebhookSecret: true } : {}),
  };
  return answered(io, async () => {
    const changed = await askService(service, `PUT /v1/tenants/${name}`, (api, signal) =>
      api.PUT("/v1/tenants/{name}", { params: { path: { name } }, body, signal }),
    );
    const rotated = flags.rotateWebhookSecret === true;
    const shown = rotated ? changed : (({ webhookSecret: _secret, ...rest }: Tenant) => rest)(changed);
    io.stdout.write(flags.json === true ? `${JSON.stringify(shown, null, 2)}\n` : described(changed, rotated));
    return EXIT.completed;
  });
}

/** One tenant, a field a line. */
function described(tenant: Tenant, withSecret: boolean): string {
  const secret = withSecret ? tenant.webhookSecret : `(agentcage tenants show ${tenant.name})`;
  const fields: Array<readonly [string, string | undefined]> = [
    ["tenant", tenant.name],
    ["created", when(tenant.createdAt)],
    ["max running", quota(tenant, "maxRunning")],
    ["max queued", quota(tenant, "maxQueued")],
    ["daily spend", quota(tenant, "dailySpendUsd", usd)],
    ["callback URL", tenant.callbackUrl ?? "none"],
    ["webhook secret", secret],
  ];
  return fields.map(([label, value]) => `${label.padEnd(15)}${cell(value)}\n`).join("");
}
