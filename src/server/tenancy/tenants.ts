// The tenants the service knows: each made with its first key, holding its quotas (the Operator's
// overrides of the service's defaults), its default callback URL and the secret its webhooks are
// signed with (Standard Webhooks' `whsec_` form). The file store keeps them in service/tenants.json,
// readable by the service's user only; read whole at start, each change written whole before it is
// answered. The Operator's own tenant always exists.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type DurableJson, durableJson, memoryJson } from "./durable-json.js";
import { OPERATOR_TENANT } from "../caller.js";

/** A tenant's caps; one left out takes the service's default (serve's --tenant-* options). */
export type TenantQuotas = {
  /** Its Runs holding a slot at once. */
  readonly maxRunning?: number;
  /** Its Runs accepted and not ended (waiting or running); past it a submit is 429. */
  readonly maxQueued?: number;
  /** What its Runs may cost per UTC day, in USD (metered by the proxy, or what the CLI reported); past it a submit is 429 until midnight UTC. */
  readonly dailySpendUsd?: number;
};

export type Tenant = {
  readonly name: string;
  readonly createdAt: string;
  readonly quotas: TenantQuotas;
  /** Where its Runs' webhooks go when a Run names no callbackUrl of its own. */
  readonly callbackUrl?: string;
  /** Signs its webhooks; shown when made or rotated, and to the tenant itself. */
  readonly webhookSecret: string;
};

/** A quota set to null goes back to the service's default. */
export type QuotaChanges = { readonly [K in keyof TenantQuotas]?: number | null };
export type TenantChanges = { readonly quotas?: QuotaChanges; readonly callbackUrl?: string | null; readonly rotateWebhookSecret?: boolean };

/**
 * The tenants: reads answer from the view this process holds, kept current by every change made
 * through it (a store shared by replicas refreshes it); a change resolves once it is stored.
 */
export type TenantStore = {
  readonly get: (name: string) => Tenant | undefined;
  readonly list: () => readonly Tenant[];
  /** The tenant, made (with a fresh webhook secret) when it is new. */
  readonly ensure: (name: string) => Promise<Tenant>;
  /** Changes a tenant's quotas (a field set to null goes back to the default), its callback URL (null: none), or its webhook secret. */
  readonly change: (name: string, changes: TenantChanges) => Promise<Tenant>;
};

type TenantsFile = { readonly tenants: Tenant[] };

/** The file store's tenants, in service/tenants.json. */
export function openTenantStore(serviceDir: string): Promise<TenantStore> {
  return tenantStoreOver(durableJson<TenantsFile>(join(serviceDir, "tenants.json")));
}

/** The in-memory store's. */
export function createMemoryTenantStore(): Promise<TenantStore> {
  return tenantStoreOver(memoryJson<TenantsFile>());
}

async function tenantStoreOver(file: DurableJson<TenantsFile>): Promise<TenantStore> {
  const tenants = new Map<string, Tenant>(((await file.read())?.tenants ?? []).map((tenant) => [tenant.name, tenant]));
  const save = () => file.write({ tenants: [...tenants.values()] });
  const made = (name: string): Tenant => ({ name, createdAt: new Date().toISOString(), quotas: {}, webhookSecret: newWebhookSecret() });
  if (!tenants.has(OPERATOR_TENANT)) {
    tenants.set(OPERATOR_TENANT, made(OPERATOR_TENANT));
    await save();
  }
  const ensure = async (name: string) => {
    const known = tenants.get(name);
    if (known !== undefined) return known;
    const tenant = made(name);
    tenants.set(name, tenant);
    await save();
    return tenant;
  };
  return {
    get: (name) => tenants.get(name),
    list: () => [...tenants.values()],
    ensure,
    change: async (name, changes) => {
      const before = await ensure(name);
      const quotas = Object.fromEntries(
        Object.entries({ ...before.quotas, ...(changes.quotas ?? {}) }).filter(([, value]) => value !== null && value !== undefined),
      ) as TenantQuotas;
      const { callbackUrl: _earlier, ...rest } = before;
      const callbackUrl = changes.callbackUrl === undefined ? before.callbackUrl : (changes.callbackUrl ?? undefined);
      const after: Tenant = {
        ...rest,
        quotas,
        ...(callbackUrl === undefined ? {} : { callbackUrl }),
        webhookSecret: changes.rotateWebhookSecret === true ? newWebhookSecret() : before.webhookSecret,
      };
      tenants.set(name, after);
      await save();
      return after;
    },
  };
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
