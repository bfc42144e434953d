// Idempotency keys, per tenant, and the Run each one made: the one place a key is claimed. Claiming
// is one step, "this key for this new Run, or who holds it", so of submits racing with one key
// exactly one makes a Run; a store shared by replicas takes the same step as an insert under a
// unique (tenant, key) constraint. Invariant: a key is held by a Run that exists or by a submit
// still making one, never by a submit that made none.

/** Who holds a key: the Run it made, or a submit still making one (`making` settles once it has made it or let the key go). */
export type KeyHolder = { readonly made: string } | { readonly making: Promise<void> };

export type KeyClaims = {
  /** Claims `key` of `tenant` for the Run `id` about to be made (resolves undefined), or resolves who holds it; atomic. */
  readonly claim: (tenant: string, key: string, id: string) => Promise<KeyHolder | undefined>;
  /** The Run `id` exists: the key answers it from now on (a restart files each Run it reads so). */
  readonly made: (tenant: string, key: string, id: string) => Promise<void>;
  /** Frees the key if `id` holds it: its submit made no Run, or its Run was removed. */
  readonly release: (tenant: string, key: string, id: string) => Promise<void>;
};

type Claim = { readonly id: string; made: boolean; readonly settled: Promise<void>; readonly settle: () => void };

/** Claims kept in this process's memory: the file store's (one process holds a runtime directory), rebuilt from the records at start. */
export function createKeyClaims(): KeyClaims {
  const claims = new Map<string, Claim>();
  // Two tenants' same key are two keys.
  const slot = (tenant: string, key: string) => `${tenant}\u0000${key}`;
  const open = (id: string, made: boolean): Claim => {
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    return { id, made, settled, settle };
  };
  return {
    // No await before the map is read and written: the step is atomic within the process.
    claim: async (tenant, key, id) => {
      const held = claims.get(slot(tenant, key));
      if (held !== undefined) return held.made ? { made: held.id } : { making: held.settled };
      claims.set(slot(tenant, key), open(id, false));
      return undefined;
    },
    made: async (tenant, key, id) => {
      const held = claims.get(slot(tenant, key));
      if (held === undefined || held.id !== id) claims.set(slot(tenant, key), open(id, true));
      else held.made = true;
      held?.settle();
    },
    release: async (tenant, key, id) => {
      const held = claims.get(slot(tenant, key));
      if (held?.id !== id) return;
      claims.delete(slot(tenant, key));
      held.settle();
    },
  };
}
