// The service's Runs as one caller sees them: its own tenant's only (every tenant's with the admin
// scope). Every route, the event stream, the artifacts and A2A read and change Runs through this
// view alone, so another tenant's Run is exactly what an unknown id is: not there.

import { sees, type Caller } from "../caller.js";
import type { RunService } from "./runs.js";
import type { RunRecord } from "./store.js";

export function runsFor(service: RunService, caller: Caller): RunService {
  const visible = (record: RunRecord | undefined) => (record !== undefined && sees(caller, record.tenant) ? record : undefined);
  const known = (id: string) => visible(service.get(id)) !== undefined;
  return {
    ...service,
    submit: (request, idempotencyKey, inputs) => service.submit(request, idempotencyKey, inputs, caller),
    get: (id) => visible(service.get(id)),
    list: () => service.list().filter((record) => sees(caller, record.tenant)),
    position: (id) => (known(id) ? service.position(id) : undefined),
    events: async (id) => (known(id) ? service.events(id) : []),
    outcome: async (id) => (known(id) ? service.outcome(id) : undefined),
    request: async (id) => (known(id) ? service.request(id) : undefined),
    listen: (id, listener) => (known(id) ? service.listen(id, listener) : () => undefined),
    cancel: async (id) => (known(id) ? service.cancel(id) : undefined),
    remove: async (id) => (known(id) ? service.remove(id) : undefined),
    removeEndedBefore: async (cutoff) => (caller.scope === "admin" ? service.removeEndedBefore(cutoff) : []),
    a2aTask: async (id) => (known(id) ? service.a2aTask(id) : undefined),
    saveA2ATask: async (id, task) => (known(id) ? service.saveA2ATask(id, task) : undefined),
    deliveries: async (id) => (known(id) ? service.deliveries(id) : []),
  };
}
