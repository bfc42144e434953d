// What the service knows of who may use it, kept by the store (service-store.ts) beside its Runs:
// the tenants' keys, the tenants (quotas, callback URL, webhook secret) and the audit log of what they did.

import type { AuditLog } from "./audit.js";
import { openAuditLog } from "./audit.js";
import type { KeyStore } from "./keys.js";
import { openKeyStore } from "./keys.js";
import type { TenantStore } from "./tenants.js";
import { openTenantStore } from "./tenants.js";

export type Tenancy = { readonly keys: KeyStore; readonly tenants: TenantStore; readonly audit: AuditLog };

/** The file store's, under service/. */
export async function openTenancy(serviceDir: string, onAuditError?: (error: unknown) => void): Promise<Tenancy> {
  return { keys: await openKeyStore(serviceDir), tenants: await openTenantStore(serviceDir), audit: openAuditLog(serviceDir, onAuditError) };
}
