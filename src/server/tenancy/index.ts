// Tenants, their keys and the audit log, each kept in a durable JSON file.
// Invariant: knows no Run; exports only, no code.
export { registerAuditTrail } from "./audit-trail.js";
export type { AuditLog } from "./audit.js";
export { AUDIT_ACTIONS } from "./audit.js";
export type { KeyRecord, KeyRefusal, KeyStore } from "./keys.js";
export { KEY_PREFIX_PATTERN } from "./keys.js";
export type { Tenancy } from "./tenancy.js";
export { createMemoryTenancy, openTenancy } from "./tenancy.js";
export type { QuotaChanges, Tenant, TenantStore } from "./tenants.js";
