// A Run's event chain over a store whose writes the test holds: events told while a write is under
// way wait and go to the store together, in one write, so a store's latency bounds how late an event
// is, not how many can be told a second; each is still told only once it is stored, in order, once.

import { describe, expect, it } from "vitest";
import { emit, listen } from "./run-events.js";
import { createRunsBook } from "./runs-state.js";
import type { RunServiceOptions } from "./run-service-options.js";
import type { RunStore, StoredEvent } from "./store.js";
import { createMemoryRunStore } from "./store-memory.js";

const ID = "00000000000000e7";

/** The in-memory store, each event write held until the test lets it go; `writes` are the ids each one wrote. */
function heldStore() {
  const store = createMemoryRunStore();
  const writes: number[][] = [];
  const held: Array<() => void> = [];
  const wrapped: RunStore = {
    ...store,
    appendEvents: async (id, events) => {
      writes.push(events.map((event) => event.id));
      await new Promise<void>((resolve) => held.push(resolve));
      await store.appendEvents(id, events);
    },
  };
  const release = () => {
    for (const go of held.splice(0)) go();
  };
  return { store: wrapped, writes, release };
}

describe("a Run's event chain", () => {
  it("writes the events told while a write is under way together, and tells each once it is stored, in order", async () => {
    const { store, writes, release } = heldStore();
    await store.create({ id: ID, tenant: "acme", state: "running", createdAt: "2026-12-01T10:00:00.000Z", labels: {} }, {});
    const book = createRunsBook({ store } as unknown as RunServiceOptions);
    const told: StoredEvent[] = [];
    listen(book, ID, (event) => told.push(event));
    const first = emit(book, ID, "agent", { n: 0 });
    // The first is being written; the other 19, told meanwhile, wait for it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const emitted = [first, ...Array.from({ length: 19 }, (_, n) => emit(book, ID, "agent", { n: n + 1 }))];
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told).toEqual([]);
    expect(writes).toEqual([[1]]);
    for (let turn = 0; turn < 20 && told.length < 20; turn++) {
      release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(emitted);
    expect(told.map((event) => event.id)).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
    expect((await store.events(ID)).map((event) => event.id)).toEqual(told.map((event) => event.id));
    expect(writes.flat()).toEqual(told.map((event) => event.id));
    expect(writes).toEqual([[1], Array.from({ length: 19 }, (_, n) => n + 2)]);
  });
});
