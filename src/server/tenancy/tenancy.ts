// What the service knows of who may use it, kept by the store (service-store.ts) beside its Runs:
// the tenants' keys, the tenants (quotas, callback URL, webhook secret) and the audit log of what they did.

import { type AuditLog, createMemoryAuditLog, openAuditLog } from "./audit.js";
import { createMemoryKeyStore, type KeyStore, openKeyStore } from "./keys.js";
import { createMemoryTenantStore, openTenantStore, type TenantStore } from "./tenants.js";

export type Tenancy = { readonly keys: KeyStore; readonly tenants: TenantStore; readonly audit: AuditLog };

/** The file store's, under service/. */
export async function openTenancy(serviceDir: string, onAuditError?: (error: unknown) => void): Promise<Tenancy> {
  return { keys: await openKeyStore(serviceDir), tenants: await openTenantStore(serviceDir), audit: openAuditLog(serviceDir, onAuditError) };
}

/** The in-memory store's. */
export async function createMemoryTenancy(onAuditError?: (error: unknown) => void): Promise<Tenancy> {
  return { keys: await createMemoryKeyStore(), tenants: await createMemoryTenantStore(), audit: createMemoryAuditLog(onAuditError) };
}
