// Who an A2A call is from: the Caller the bearer check found, carried to the SDK as its User, so
// the task store, the event buses and the agent each read and make tasks as that caller's tenant.
// A call that carries no Caller (the SDK calling on its own) is nobody's: it sees no task at all.

import { ServerCallContext, type User } from "@a2a-js/sdk/server";
import type { Caller, Scope } from "../caller.js";

/** What an A2A call did to a Run, for the audit log: made it (or was answered it) or cancelled it, and how that went. */
export type A2AAct = (action: "run.create" | "run.cancel", runId: string | undefined, result: number | string) => void;

/** The SDK's User for one Caller; its userName is the Caller's tenant. `acted` records what the call did (the audit log). */
export class CallerUser implements User {
  constructor(
    readonly caller: Caller,
    readonly acted: A2AAct = () => undefined,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.caller.tenant;
  }
}

/** No tenant's and no scope's: sees no Run (a tenant's name is never empty) and may change none. */
const NOBODY: Caller = { tenant: "", scope: "runs:read", key: "" };

/** The Caller a call context carries, or nobody. */
export function callerOf(context: ServerCallContext | undefined): Caller {
  const user = context?.user;
  return user instanceof CallerUser ? user.caller : NOBODY;
}

/** Records what a call did to a Run, when the call came through the service's door (a CallerUser). */
export function actedIn(context: ServerCallContext | undefined): A2AAct {
  const user = context?.user;
  return user instanceof CallerUser ? user.acted : () => undefined;
}

/** A call context for one Caller (the tests' and the service's own way to make one). */
export function callContextOf(caller: Caller): ServerCallContext {
  return new ServerCallContext({ user: new CallerUser(caller) });
}

/**
 * The JSON-RPC methods that make or change a task, in A2A 1.0 and 0.3 words; a key with runs:read
 * alone may read tasks and follow them, never these.
 */
const CHANGING_METHODS: ReadonlySet<string> = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "CancelTask",
  "CreateTaskPushNotificationConfig",
  "DeleteTaskPushNotificationConfig",
  "message/send",
  "message/stream",
  "tasks/cancel",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/delete",
]);

/** The scope a JSON-RPC method needs: runs:write to make or change a task, runs:read for the rest. */
export function scopeForMethod(method: string): Scope {
  return CHANGING_METHODS.has(method) ? "runs:write" : "runs:read";
}
