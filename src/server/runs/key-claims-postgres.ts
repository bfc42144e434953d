// Idempotency keys claimed in Postgres: the claim is one INSERT under the (tenant, key) primary key,
// so of submits racing with one key, in this process or any other over the same database, exactly
// one makes the row; the others read who holds it. A holder still making its Run is waited on: told
// at once when it is in this process, else seen by asking again every KEY_WAIT_POLL_MS.

import type pg from "pg";
import type { KeyClaims, KeyHolder } from "./key-claims.js";

/** Between two reads of a key whose holder, in another process, is still making its Run. */
export const KEY_WAIT_POLL_MS = 100;

export function createPostgresKeyClaims(pool: pg.Pool, ready: () => Promise<void>): KeyClaims {
  // Those in this process waiting on a key, told when this process makes or releases it.
  const waiting = new Map<string, Set<() => void>>();
  const slot = (tenant: string, key: string) => `${tenant}\u0000${key}`;
  const wake = (tenant: string, key: string) => {
    const told = waiting.get(slot(tenant, key));
    waiting.delete(slot(tenant, key));
    for (const resolve of told ?? []) resolve();
  };
  /** Resolves once the key is no longer held by `id` still making its Run (made, released, or taken by another). */
  const settled = (tenant: string, key: string, id: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        waiting.get(slot(tenant, key))?.delete(done);
        resolve();
      };
      const set = waiting.get(slot(tenant, key)) ?? new Set<() => void>();
      waiting.set(slot(tenant, key), set);
      set.add(done);
      const look = async () => {
        const { rows } = await pool.query<{ run_id: string; made: boolean }>(
          "SELECT run_id, made FROM agentcage.idempotency_keys WHERE tenant = $1 AND key = $2",
          [tenant, key],
        );
        const row = rows[0];
        if (row === undefined || row.made || row.run_id !== id) done();
        else if (set.has(done)) timer = setTimeout(() => void look().catch(fail), KEY_WAIT_POLL_MS);
      };
      const fail = (error: unknown) => {
        waiting.get(slot(tenant, key))?.delete(done);
        reject(error);
      };
      timer = setTimeout(() => void look().catch(fail), KEY_WAIT_POLL_MS);
    });

  return {
    claim: async (tenant, key, id) => {
      await ready();
      for (;;) {
        const inserted = await pool.query(
          "INSERT INTO agentcage.idempotency_keys (tenant, key, run_id, made) VALUES ($1, $2, $3, false) ON CONFLICT (tenant, key) DO NOTHING",
          [tenant, key, id],
        );
        if (inserted.rowCount === 1) return undefined;
        const { rows } = await pool.query<{ run_id: string; made: boolean }>(
          "SELECT run_id, made FROM agentcage.idempotency_keys WHERE tenant = $1 AND key = $2",
          [tenant, key],
        );
        const row = rows[0];
        // Let go between the two statements: claim it again.
        if (row === undefined) continue;
        const holder: KeyHolder = row.made ? { made: row.run_id } : { making: settled(tenant, key, row.run_id) };
        return holder;
      }
    },
    made: async (tenant, key, id) => {
      await ready();
      await pool.query(
        `INSERT INTO agentcage.idempotency_keys (tenant, key, run_id, made) VALUES ($1, $2, $3, true)
         ON CONFLICT (tenant, key) DO UPDATE SET run_id = EXCLUDED.run_id, made = true`,
        [tenant, key, id],
      );
      wake(tenant, key);
    },
    release: async (tenant, key, id) => {
      await ready();
      const deleted = await pool.query("DELETE FROM agentcage.idempotency_keys WHERE tenant = $1 AND key = $2 AND run_id = $3", [tenant, key, id]);
      if (deleted.rowCount !== 0) wake(tenant, key);
    },
  };
}
