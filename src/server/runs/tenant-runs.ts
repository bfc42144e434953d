// The service's Runs as one caller sees them: its own tenant's only (every tenant's with the admin
// scope). Every route, the event stream, the artifacts and A2A read and change Runs through this
// view alone, so another tenant's Run is exactly what an unknown id is: not there.

import { sees, type Caller } from "../caller.js";
import type { RunService } from "./runs.js";
import type { RunRecord } from "./store.js";

export function runsFor(service: RunService, caller: Caller): RunService {
  const visible = (record: RunRecord | undefined) => (record !== undefined && sees(caller, record.tenant) ? record : undefined);
  const known = async (id: string) => visible(await service.get(id)) !== undefined;
  // A tenant's key asks of its own tenant's Runs alone, whatever tenant it names.
  const own = (tenant: string | undefined): string | undefined | false =>
    caller.scope === "admin" ? tenant : tenant === undefined || tenant === caller.tenant ? caller.tenant : false;
  return {
    ...service,
    submit: (request, idempotencyKey, inputs) => service.submit(request, idempotencyKey, inputs, caller),
    get: async (id) => visible(await service.get(id)),
    page: async (query) => {
      const tenant = own(query.tenant);
      return tenant === false ? { records: [], more: false } : service.page({ ...query, tenant });
    },
    usage: async (since, asked) => {
      const tenant = own(asked);
      return tenant === false ? [] : service.usage(since, tenant);
    },
    live: () => service.live().filter((record) => sees(caller, record.tenant)),
    tenants: () => service.tenants().filter((tenant) => sees(caller, tenant)),
    held: (id) => visible(service.held(id)),
    position: (id) => (visible(service.held(id)) === undefined ? undefined : service.position(id)),
    events: async (id) => ((await known(id)) ? service.events(id) : []),
    outcome: async (id) => ((await known(id)) ? service.outcome(id) : undefined),
    request: async (id) => ((await known(id)) ? service.request(id) : undefined),
    // Only a Run the book holds has events still to come.
    listen: (id, listener) => (visible(service.held(id)) === undefined ? () => undefined : service.listen(id, listener)),
    cancel: async (id) => ((await known(id)) ? service.cancel(id) : undefined),
    remove: async (id) => ((await known(id)) ? service.remove(id) : undefined),
    removeEndedBefore: async (cutoff) => (caller.scope === "admin" ? service.removeEndedBefore(cutoff) : []),
    a2aTask: async (id) => ((await known(id)) ? service.a2aTask(id) : undefined),
    saveA2ATask: async (id, task) => ((await known(id)) ? service.saveA2ATask(id, task) : undefined),
    deliveries: async (id) => ((await known(id)) ? service.deliveries(id) : []),
  };
}
