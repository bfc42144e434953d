// Submit: what makes a Run, and what answers one that was made. A request the service cannot serve
// is refused before it is a Run; the bound counts every Run accepted and not ended; a Run's id is
// made here (the library's newRunId: the one id its container, directories and Outcome take); its
// input files are written before it is accepted. An idempotency key answers the Run it made, within
// its tenant only: another tenant's same key is another key. A tenant past its quota is refused.

import { newRunId } from "../../runtime/index.js";
import { type Caller, OPERATOR } from "../caller.js";
import { quotaRefusal, spendRefusal, type QuotaRefusal } from "./quotas.js";
import { emit } from "./run-events.js";
import { pump } from "./run-queue.js";
import type { ServiceRunRequest } from "./run-service-options.js";
import { recordOf, type RunsBook } from "./runs-state.js";
import { holdSession } from "./session-holds.js";
import type { RunRecord } from "./store.js";
import { told } from "./run-transitions.js";

/**
 * Writes a Run's input files into `directory` (which does not exist yet) before the Run is
 * accepted, and says what it wrote; a rejection refuses the Run, and its directory is removed.
 */
export type InputsWriter = (directory: string) => Promise<NonNullable<RunRecord["inputs"]>>;

export type Admitted = { readonly record: RunRecord; readonly created: boolean };
/** The idempotency key was given before, with a different request: the Run it made, which this request is not. */
export type KeyReused = { readonly reused: RunRecord };
/** Why a submit made no Run: the bound is reached, the service is shutting down, or the tenant is at a quota. */
export type Refused = "queue_full" | "draining" | QuotaRefusal;
/** A request the service cannot serve (a session to resume, and no sessions kept; writable without inputs; a callback URL it may not post to): what to do instead. */
export type Unserved = { readonly unserved: string };

/**
 * Accepts a Run, or says why not. A known idempotency key answers the Run it made when the request
 * is the same (field order aside; inputs given or not), and that Run as `reused` when it is not; a
 * second submit with a key still being submitted waits for the first.
 */
export async function submit(
  state: RunsBook,
  request: ServiceRunRequest,
  idempotencyKey: string | undefined,
  inputs: InputsWriter | undefined,
  owner: Caller = OPERATOR,
): Promise<Admitted | KeyReused | Refused | Unserved> {
  const unserved = (await unservedBecause(state, request, inputs, owner)) ?? (await state.options.callbackRefusal?.(request, owner));
  if (unserved !== undefined) return { unserved };
  const id = newRunId();
  if (idempotencyKey === undefined) return admit(state, request, id, undefined, inputs, owner);
  // The key is claimed for this Run in one step, or names who holds it: of the submits racing with
  // one key, one makes its Run; the others wait for it, then answer that Run or refuse naming it.
  const { keys } = state.store;
  for (let holder = await keys.claim(owner.tenant, idempotencyKey, id); holder !== undefined; holder = await keys.claim(owner.tenant, idempotencyKey, id)) {
    if ("making" in holder) {
      await holder.making;
      continue;
    }
    const record = await recordOf(state, holder.made);
    // Removed meanwhile (DELETE): its key is free again.
    if (record === undefined) continue;
    const same = canonical(await state.store.request(holder.made)) === canonical(request) && (record.inputs !== undefined) === (inputs !== undefined);
    return same ? { record, created: false } : { reused: record };
  }
  try {
    return await admit(state, request, id, idempotencyKey, inputs, owner);
  } finally {
    // However its submit ended, the key answers the Run once it exists; a submit that made none (a
    // refusal, inputs or a record that failed) lets the key go, and the next submit with it may make one.
    if (state.records.has(id) || (await state.store.get(id)) !== undefined) await keys.made(owner.tenant, idempotencyKey, id);
    else await keys.release(owner.tenant, idempotencyKey, id);
  }
}

/** What to do instead, for a request this service cannot serve; undefined when it can. */
async function unservedBecause(state: RunsBook, request: ServiceRunRequest, inputs: InputsWriter | undefined, owner: Caller): Promise<string | undefined> {
  const cannot = state.options.requestRefusal?.(request);
  if (cannot !== undefined) return cannot;
  if (request.writable === true && (inputs === undefined || state.options.writableRunner === undefined)) {
    return inputs === undefined
      ? "writable: true needs input files: the agent edits a copy of them; send the request as multipart/form-data with the part `request`, then the tar archive `inputs`, or leave writable out"
      : "writable: true is not offered by this service; leave writable out";
  }
  if (request.resumeSession !== undefined && state.options.sessions !== true) {
    return `resumeSession ${JSON.stringify(request.resumeSession)} cannot be resumed: this service keeps no sessions; leave resumeSession out, or ask its Operator to start it with agentcage serve --sessions (AGENTCAGE_SESSIONS=1 in compose)`;
  }
  if (request.resumeSession === undefined) return undefined;
  // A session is its tenant's: another tenant's is refused exactly as one that never was.
  const kept = await state.store.sessionOwner(request.resumeSession);
  if (owner.scope !== "admin" && kept?.tenant !== owner.tenant) {
    return `resumeSession ${JSON.stringify(request.resumeSession)} is not a session of a Run of yours; resume one that a Run of yours ended with (its Outcome's result.sessionId), or leave resumeSession out`;
  }
  // A session is one CLI's: the other cannot read it, and would fail only once its container started.
  if (kept?.cli !== undefined && kept.cli !== request.cli) {
    return `resumeSession ${JSON.stringify(request.resumeSession)} is a ${kept.cli} session; resume it with cli ${JSON.stringify(kept.cli)}, not ${JSON.stringify(request.cli)}`;
  }
  return undefined;
}

async function admit(
  state: RunsBook,
  request: ServiceRunRequest,
  id: string,
  idempotencyKey: string | undefined,
  inputs: InputsWriter | undefined,
  owner: Caller,
): Promise<Admitted | KeyReused | Refused> {
  const { store, files } = state;
  // The bound holds every Run accepted and not ended (waiting or running), counted before the
  // first await: submits that arrive together cannot all see room for one.
  if (state.draining) return "draining";
  if (state.queue.length + state.running.size + state.admitting >= state.options.queueBound) return "queue_full";
  const overQuota = quotaRefusal(state, owner.tenant);
  if (overQuota !== undefined) return overQuota;
  state.admitting += 1;
  state.admittingBy.set(owner.tenant, (state.admittingBy.get(owner.tenant) ?? 0) + 1);
  try {
    // What its Runs cost today is the store's sum: asked once the Run is counted, so none slips past the bounds meanwhile.
    const overSpend = await spendRefusal(state, owner.tenant);
    if (overSpend !== undefined) return overSpend;
    let given: RunRecord["inputs"];
    if (inputs !== undefined) {
      await files.open(id);
      try {
        given = await inputs(files.inputsDirectory(id));
      } catch (error) {
        // What the refusal says matters more than a failed removal; the next start removes what is left.
        await files.remove(id).catch(() => undefined);
        throw error;
      }
    }
    const record: RunRecord = {
      id,
      tenant: owner.tenant,
      key: owner.key,
      state: "queued",
      createdAt: new Date().toISOString(),
      cli: request.cli,
      ...(request.model === undefined ? {} : { model: request.model }),
      labels: request.labels ?? {},
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      ...(given === undefined ? {} : { inputs: given }),
    };
    await store.create(record, request, owner.trace);
    state.records.set(record.id, record);
    state.tenants.add(record.tenant);
    if (owner.trace !== undefined) state.traces.set(record.id, owner.trace);
    await emit(state, record.id, "state", { state: "queued" });
    holdSession(state, record.id, request);
    state.queue.push(record.id);
    told(state, "run.queued", record);
  } finally {
    state.admitting -= 1;
    state.admittingBy.set(owner.tenant, (state.admittingBy.get(owner.tenant) ?? 1) - 1);
  }
  pump(state);
  return { record: state.records.get(id) ?? ((await state.store.get(id)) as RunRecord), created: true };
}

/** A request as JSON with every object's keys in order: two requests that differ only in field order are one. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
