// After a restart, the service's Runs rebuilt from their record alone: finished ones left to the
// store (nothing of them is read here), queued ones queued again (their session stores held), and ones that were starting or running
// ended as interrupted (unavailable). Invariant: a queued Run whose request cannot be read stops
// nothing here; it fails when it starts.

import { recoverHarvest } from "../../staging/index.js";
import { pump } from "./run-queue.js";
import type { ServiceRunRequest } from "./run-service-options.js";
import { end } from "./run-transitions.js";
import type { RunsBook } from "./runs-state.js";
import { holdSession } from "./session-holds.js";

export async function recover(state: RunsBook): Promise<void> {
  const { store, files } = state;
  await store.prepare();
  for (const tenant of await store.tenants()) state.tenants.add(tenant);
  // Only the Runs that had not ended: an ended one is the store's to answer, and costs a start nothing.
  for (const { record: saved, lastEventId } of await store.recoverable()) {
    state.records.set(saved.id, saved);
    state.lastEventId.set(saved.id, lastEventId);
    if (saved.state === "queued") {
      // A request that cannot be read holds nothing here; its Run fails when it starts.
      const request = (await store.request(saved.id).catch(() => undefined)) as ServiceRunRequest | undefined;
      if (request !== undefined) holdSession(state, saved.id, request);
      // Its caller's trace context, so the Run it starts as is still a child of the caller's span.
      const trace = await store.trace(saved.id);
      if (trace !== undefined) state.traces.set(saved.id, trace);
      state.queue.push(saved.id);
    } else {
      // Its process is gone, and so is every chance of its Outcome: say so; the sweep removes its container,
      // and what a Harvest cut short left beside harvest/ goes.
      await recoverHarvest(files.harvestDirectory(saved.id));
      await end(
        state,
        saved,
        {
          runId: saved.id,
          ok: false,
          reason: "unavailable",
          error: "the service stopped while this Run ran; it was ended when the service started again, and its container (on Kubernetes, its Pod) removed",
        },
        "failed",
      );
    }
  }
  pump(state);
}
