// The Postgres Run store's schema, as versioned migrations in the `agentcage` schema of its database,
// applied at open: all that are missing, in order, in one transaction under an advisory lock, so that
// stores opening one database at once apply each exactly once. Invariant: a migration, once released,
// is never edited (a change is a new one), and a database whose schema is newer than this code knows
// is refused, never written.

import type pg from "pg";
import { RUN_STATES, TERMINAL_STATES } from "./store.js";

/** The states of a Run that has not ended, as an SQL list: the partial index and the queries must say it alike. */
export const LIVE_STATES_SQL = RUN_STATES.filter((state) => !TERMINAL_STATES.has(state))
  .map((state) => `'${state}'`)
  .join(", ");

/**
 * Every migration, oldest first; `version` is its place. Text columns that are sorted or compared
 * with what JavaScript compared (ids, creation times, tenants) use the "C" collation: byte order,
 * as the file store's index sorts. Documents (records, requests, events, Outcomes) are kept as the
 * JSON text they were written as, so they read back exactly.
 */
export const MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE agentcage.runs (
        id text COLLATE "C" PRIMARY KEY,
        tenant text COLLATE "C" NOT NULL,
        state text NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        cli text,
        labels jsonb NOT NULL,
        ended_ms bigint,
        reason text,
        input_tokens double precision,
        output_tokens double precision,
        cost_usd double precision,
        session text,
        owes text[] NOT NULL DEFAULT '{}',
        record text NOT NULL,
        request text NOT NULL,
        trace text,
        outcome text,
        a2a_task text,
        events_count integer NOT NULL DEFAULT 0,
        last_event_id bigint NOT NULL DEFAULT 0
      );
      CREATE INDEX runs_order ON agentcage.runs (created_at, id);
      CREATE INDEX runs_tenant ON agentcage.runs (tenant, created_at, id);
      CREATE INDEX runs_state ON agentcage.runs (state, created_at, id);
      CREATE INDEX runs_cli ON agentcage.runs (cli, created_at, id);
      CREATE INDEX runs_labels ON agentcage.runs USING gin (labels jsonb_path_ops);
      CREATE INDEX runs_ended ON agentcage.runs (ended_ms) WHERE ended_ms IS NOT NULL;
      CREATE INDEX runs_live ON agentcage.runs (created_at, id) WHERE state IN (${LIVE_STATES_SQL});
      CREATE INDEX runs_session ON agentcage.runs (session, created_at, id) WHERE session IS NOT NULL;
      CREATE INDEX runs_owing ON agentcage.runs (created_at, id) WHERE owes <> '{}';

      CREATE TABLE agentcage.run_events (
        run_id text COLLATE "C" NOT NULL REFERENCES agentcage.runs (id) ON DELETE CASCADE,
        position integer NOT NULL,
        event text NOT NULL,
        PRIMARY KEY (run_id, position)
      );

      CREATE TABLE agentcage.run_deliveries (
        run_id text COLLATE "C" NOT NULL REFERENCES agentcage.runs (id) ON DELETE CASCADE,
        position bigint GENERATED ALWAYS AS IDENTITY,
        line text NOT NULL,
        PRIMARY KEY (run_id, position)
      );

      CREATE TABLE agentcage.idempotency_keys (
        tenant text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        run_id text COLLATE "C" NOT NULL,
        made boolean NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, key)
      );
      CREATE INDEX idempotency_keys_run ON agentcage.idempotency_keys (run_id);
    `,
  },
];

/** The newest schema this code knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** Any number of opens of one database take this lock in turn while they migrate (a constant of this project's own). */
const MIGRATION_LOCK = 7_261_034_117_402_513;

/** A database whose schema is newer than this code: refused, in words that say what to do. */
export class NewerSchemaError extends Error {}

/** Applies the migrations the database lacks, in one transaction; rejects (NewerSchemaError) when its schema is newer than SCHEMA_VERSION. */
export async function migrate(pool: pg.Pool, where: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE SCHEMA IF NOT EXISTS agentcage");
    await client.query("CREATE TABLE IF NOT EXISTS agentcage.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
    const { rows } = await client.query<{ version: number | null }>("SELECT max(version) AS version FROM agentcage.schema_migrations");
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new NewerSchemaError(
        `the Run store at ${where} holds schema version ${current}, newer than the ${SCHEMA_VERSION} this agentcage knows; run the agentcage version that wrote it (or a newer one), or point --store at another database`,
      );
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO agentcage.schema_migrations (version) VALUES ($1)", [migration.version]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
