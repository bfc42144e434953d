// Who is asking: every request past the bearer check is a Caller, a tenant and a scope, named by
// the key it showed. A Run belongs to the tenant that made it; a caller sees its own tenant's Runs
// only, and the admin scope sees every tenant's. The service's start-up token is the Operator's admin key.

import type { TraceHeaders } from "../trace/index.js";

/** What a key may do: read its tenant's Runs; read, make, cancel and delete them; or all that for every tenant, plus keys, tenants and the audit log. */
export const SCOPES = ["runs:read", "runs:write", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** The tenant of the Operator's start-up token, and of Runs recorded before there were tenants. */
export const OPERATOR_TENANT = "operator";
/** How the start-up token is named where a key's prefix would be (the audit log, a Run's record). */
export const OPERATOR_KEY = "operator-token";

/** A tenant's name: lower-case letters, digits, `-` and `_`, 1 to 63, starting with a letter or digit. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export type Caller = {
  readonly tenant: string;
  readonly scope: Scope;
  /** The prefix of the key shown, or OPERATOR_KEY for the start-up token. */
  readonly key: string;
  /** The W3C trace context of the request this caller made, when it sent one: a Run it submits is traced as a child of it. */
  readonly trace?: TraceHeaders;
};

export const OPERATOR: Caller = { tenant: OPERATOR_TENANT, scope: "admin", key: OPERATOR_KEY };

const RANK: Readonly<Record<Scope, number>> = { "runs:read": 0, "runs:write": 1, admin: 2 };

/** Whether a caller's scope covers `needed`: each scope holds the ones before it. */
export function allows(caller: Caller, needed: Scope): boolean {
  return RANK[caller.scope] >= RANK[needed];
}

/** Whether a caller may see what belongs to `tenant`: its own, or any with the admin scope. */
export function sees(caller: Caller, tenant: string): boolean {
  return caller.scope === "admin" || caller.tenant === tenant;
}

/** Why a caller may not name `tenant` in `?tenant=` to read its `what` (not its own, and not the admin scope); undefined when it may. */
export function otherTenantRefusal(caller: Caller, tenant: string | undefined, what: string): string | undefined {
  if (tenant === undefined || sees(caller, tenant)) return undefined;
  return `tenant ${JSON.stringify(tenant)} is not this key's; leave tenant= out to read your own tenant's ${what}`;
}
