// The Postgres Run Store: the same contract as the file store (store.ts, the contract suite), kept in
// a database several processes can reach. One row per Run (its record, request, trace, Outcome and A2A
// task as the JSON text they were written as, beside the columns the queries filter and sort on), its
// events and webhook deliveries in tables of their own, idempotency keys under a (tenant, key) key.
// Every query is answered from an index (store-postgres-schema.ts), so a page, a usage sum and a submit
// cost the same however many Runs are kept. Invariant: the writes of one Run land in the order they
// were asked (one after the other in this process: its one writer), each in one statement or one transaction.

import pg from "pg";
import type { TraceHeaders } from "../../trace/index.js";
import { createPostgresKeyClaims } from "./key-claims-postgres.js";
import { owedAfter, sessionOf } from "./run-index.js";
import type { RunQuery, RunRecord, RunStore, StoredDelivery, StoredEvent } from "./store.js";
import { TERMINAL_STATES } from "./store.js";
import { LIVE_STATES_SQL, migrate, NewerSchemaError } from "./store-postgres-schema.js";
import { addTotals, type TenantUsage, zeroTotals } from "./usage.js";

/** Connections the store holds at most: enough for a service's Runs writing at once, few enough for a shared server. */
export const POSTGRES_POOL_SIZE = 10;

/** A Run Store over Postgres, and how to let go of its connections. */
export type PostgresRunStore = RunStore & {
  /** Closes its connections; nothing may be asked of it after. */
  readonly close: () => Promise<void>;
};

/** The URL as it may be shown: its password, if any, masked, both where a URL holds one and in the query, where pg reads one too. */
export function maskedStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "****";
    if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "****");
    return parsed.toString();
  } catch {
    // Not a URL the WHATWG parser takes: mask whatever stands between `user:` and `@`, and a password in the query.
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1****@").replace(/([?&]password=)[^&#]*/gi, "$1****");
  }
}

/** Which Runs a page selects, as one statement: each filter given, newest first, after the keyset, one more than the page to say whether more follow. */
export function pageQuery(query: RunQuery): { readonly text: string; readonly values: unknown[] } {
  const values: unknown[] = [];
  const where: string[] = [];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.tenant !== undefined) where.push(`tenant = ${parameter(query.tenant)}`);
  if (query.state !== undefined) where.push(`state = ${parameter(query.state)}`);
  if (query.cli !== undefined) where.push(`cli = ${parameter(query.cli)}`);
  // One containment per label: two values asked of one key match no Run, as the file store's index answers.
  for (const [key, value] of query.labels ?? []) where.push(`labels @> ${parameter(JSON.stringify({ [key]: value }))}::jsonb`);
  if (query.after !== undefined) where.push(`(created_at, id) < (${parameter(query.after.createdAt)}, ${parameter(query.after.id)})`);
  const text = `SELECT record FROM agentcage.runs${where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`} ORDER BY created_at DESC, id DESC LIMIT ${parameter(query.limit + 1)}`;
  return { text, values };
}

/** The usage sums' statement: each tenant's ended Runs since a time, by reason, in total and per label. */
export function usageQuery(since: number, tenant?: string): { readonly text: string; readonly values: unknown[] } {
  const values: unknown[] = [since];
  if (tenant !== undefined) values.push(tenant);
  const text = `
    WITH ended AS (
      SELECT tenant, labels, COALESCE(reason, state) AS reason, input_tokens, output_tokens, cost_usd
      FROM agentcage.runs WHERE ended_ms IS NOT NULL AND ended_ms >= $1${tenant === undefined ? "" : " AND tenant = $2"}
    )
    SELECT tenant, NULL AS label, reason, count(*)::integer AS runs, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd
      FROM ended GROUP BY tenant, reason
    UNION ALL
    SELECT tenant, label.key || '=' || label.value, reason, count(*)::integer, sum(input_tokens), sum(output_tokens), sum(cost_usd)
      FROM ended, jsonb_each_text(ended.labels) AS label GROUP BY tenant, label.key, label.value, reason`;
  return { text, values };
}

type UsageRow = {
  tenant: string;
  label: string | null;
  reason: string;
  runs: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
};

/** The columns a record's row is filtered and summed on, in the order of RECORD_COLUMNS. */
function recordColumns(record: RunRecord): unknown[] {
  const ended = record.endedAt === undefined ? Number.NaN : Date.parse(record.endedAt);
  return [
    record.tenant,
    record.state,
    record.createdAt,
    record.cli ?? null,
    JSON.stringify(record.labels),
    Number.isFinite(ended) ? ended : null,
    record.reason ?? null,
    record.usage?.inputTokens ?? null,
    record.usage?.outputTokens ?? null,
    record.usage?.costUsd ?? null,
    JSON.stringify(record),
  ];
}
const RECORD_COLUMNS = ["tenant", "state", "created_at", "cli", "labels", "ended_ms", "reason", "input_tokens", "output_tokens", "cost_usd", "record"] as const;

/** A value as JSON text (null for undefined), and back. */
const text = (value: unknown): string | null => (value === undefined ? null : (JSON.stringify(value) ?? null));
const parsed = <T>(value: string | null | undefined): T | undefined => (value === null || value === undefined ? undefined : (JSON.parse(value) as T));

/**
 * A Run Store over the Postgres database at `url` (`postgres://user:password@host:port/database`).
 * Its schema is migrated at the first call (`prepare`, which serve makes first); a database whose schema
 * is newer than this code is refused there.
 */
export function createPostgresRunStore(url: string): PostgresRunStore {
  const where = maskedStoreUrl(url);
  const pool = new pg.Pool({ connectionString: url, max: POSTGRES_POOL_SIZE });
  // A connection the server dropped while idle is let go by the pool; the next query takes a new one.
  pool.on("error", () => undefined);
  let migrated: Promise<void> | undefined;
  const ready = () =>
    (migrated ??= migrate(pool, where).catch((error: unknown) => {
      migrated = undefined;
      if (error instanceof NewerSchemaError) throw error;
      throw new Error(
        `the Run store at ${where} could not be opened: ${error instanceof Error ? error.message : String(error)}; check that Postgres answers there and that its user, password (PGPASSWORD) and database are right`,
        { cause: error },
      );
    }));
  const query = async <R extends pg.QueryResultRow>(statement: string, values: unknown[] = []): Promise<pg.QueryResult<R>> => {
    await ready();
    return pool.query<R>(statement, values);
  };
  const inTransaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    await ready();
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  // One Run's writes one after the other, in the order asked: two on two connections could land the other way round.
  const writing = new Map<string, Promise<unknown>>();
  const inTurn = <T>(id: string, write: () => Promise<T>): Promise<T> => {
    const done = (writing.get(id) ?? Promise.resolve()).then(write);
    const settled = done.catch(() => undefined);
    writing.set(id, settled);
    void settled.then(() => {
      if (writing.get(id) === settled) writing.delete(id);
    });
    return done;
  };
  const notRecorded = (id: string) => new Error(`no Run ${JSON.stringify(id)} is recorded in the Run store at ${where}`);
  const one = async (statement: string, id: string): Promise<string | undefined> => {
    const { rows } = await query<{ value: string | null }>(statement, [id]);
    return rows[0]?.value ?? undefined;
  };

  return {
    keys: createPostgresKeyClaims(pool, ready),
    close: () => pool.end(),
    prepare: async () => {
      await ready();
      // A key claimed by a submit whose process ended before it made its Run or let the key go.
      await query("DELETE FROM agentcage.idempotency_keys k WHERE NOT k.made AND NOT EXISTS (SELECT 1 FROM agentcage.runs r WHERE r.id = k.run_id)");
      // A create is one transaction: none is ever left half made.
      return [];
    },
    create: async (record, request, trace) => {
      const columns = ["id", ...RECORD_COLUMNS, "request", "trace"];
      const values = [record.id, ...recordColumns(record), text(request) ?? "null", text(trace)];
      await query(`INSERT INTO agentcage.runs (${columns.join(", ")}) VALUES (${columns.map((_, at) => `$${at + 1}`).join(", ")})`, values);
    },
    update: (record) =>
      inTurn(record.id, async () => {
        const set = RECORD_COLUMNS.map((column, at) => `${column} = $${at + 2}`).join(", ");
        const updated = await query(`UPDATE agentcage.runs SET ${set} WHERE id = $1`, [record.id, ...recordColumns(record)]);
        if (updated.rowCount === 0) throw notRecorded(record.id);
      }),
    get: async (id) => parsed<RunRecord>(await one("SELECT record AS value FROM agentcage.runs WHERE id = $1", id)),
    page: async (asked) => {
      const { text: statement, values } = pageQuery(asked);
      const { rows } = await query<{ record: string }>(statement, values);
      const records = rows.slice(0, asked.limit).map((row) => JSON.parse(row.record) as RunRecord);
      return { records, more: rows.length > asked.limit };
    },
    usage: async (since, tenant) => {
      const { text: statement, values } = usageQuery(since, tenant);
      const { rows } = await query<UsageRow>(statement, values);
      const sums = new Map<string, TenantUsage>();
      for (const row of rows) {
        const usage = sums.get(row.tenant) ?? { tenant: row.tenant, totals: zeroTotals(), labels: {} };
        sums.set(row.tenant, usage);
        const totals = row.label === null ? usage.totals : (usage.labels[row.label] ??= zeroTotals());
        addTotals(totals, {
          runs: row.runs,
          reasons: { [row.reason]: row.runs },
          inputTokens: row.input_tokens ?? 0,
          outputTokens: row.output_tokens ?? 0,
          costUsd: row.cost_usd ?? 0,
        });
      }
      return [...sums.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
    },
    recoverable: async () => {
      const { rows } = await query<{ record: string; last_event_id: string }>(
        `SELECT record, last_event_id FROM agentcage.runs WHERE state IN (${LIVE_STATES_SQL}) ORDER BY created_at, id`,
      );
      return rows.map((row) => ({ record: JSON.parse(row.record) as RunRecord, lastEventId: Number(row.last_event_id) }));
    },
    endedBefore: async (cutoff) => {
      const terminal = [...TERMINAL_STATES];
      const { rows } = await query<{ id: string }>(
        "SELECT id FROM agentcage.runs WHERE ended_ms IS NOT NULL AND ended_ms < $1 AND state = ANY($2) ORDER BY ended_ms, id",
        [cutoff, terminal],
      );
      return rows.map((row) => row.id);
    },
    sessionOwner: async (session) => {
      const { rows } = await query<{ tenant: string; cli: string | null }>(
        "SELECT tenant, cli FROM agentcage.runs WHERE session = $1 ORDER BY created_at, id LIMIT 1",
        [session],
      );
      const owner = rows[0];
      return owner === undefined ? undefined : { tenant: owner.tenant, cli: owner.cli ?? undefined };
    },
    owing: async () => {
      const { rows } = await query<{ id: string }>("SELECT id FROM agentcage.runs WHERE owes <> '{}' ORDER BY created_at, id");
      return rows.map((row) => row.id);
    },
    // Each name found from the last one by the tenant index (a skip scan): the cost of the tenants, not of their Runs.
    tenants: async () => {
      const { rows } = await query<{ tenant: string }>(`
        WITH RECURSIVE found(tenant) AS (
          (SELECT tenant FROM agentcage.runs ORDER BY tenant LIMIT 1)
          UNION ALL
          SELECT (SELECT r.tenant FROM agentcage.runs r WHERE r.tenant > found.tenant ORDER BY r.tenant LIMIT 1) FROM found WHERE found.tenant IS NOT NULL
        )
        SELECT tenant FROM found WHERE tenant IS NOT NULL`);
      return rows.map((row) => row.tenant);
    },
    request: async (id) => {
      const { rows } = await query<{ request: string }>("SELECT request FROM agentcage.runs WHERE id = $1", [id]);
      if (rows[0] === undefined) throw notRecorded(id);
      return JSON.parse(rows[0].request);
    },
    trace: async (id) => parsed<TraceHeaders>(await one("SELECT trace AS value FROM agentcage.runs WHERE id = $1", id)),
    // One statement: the Run's count of events moved on, and its events inserted after it, in the order given.
    appendEvents: (id, events) =>
      inTurn(id, async () => {
        if (events.length === 0) return;
        const inserted = await query(
          `WITH run AS (
             UPDATE agentcage.runs SET events_count = events_count + $2, last_event_id = $3 WHERE id = $1 RETURNING events_count - $2 AS base
           )
           INSERT INTO agentcage.run_events (run_id, position, event)
           SELECT $1, run.base + given.at, given.event FROM run, unnest($4::text[]) WITH ORDINALITY AS given(event, at)`,
          [id, events.length, (events.at(-1) as StoredEvent).id, events.map((event) => JSON.stringify(event))],
        );
        if (inserted.rowCount === 0) throw notRecorded(id);
      }),
    events: async (id) => {
      const { rows } = await query<{ event: string }>("SELECT event FROM agentcage.run_events WHERE run_id = $1 ORDER BY position", [id]);
      return rows.map((row) => JSON.parse(row.event) as StoredEvent);
    },
    saveOutcome: (id, outcome) =>
      inTurn(id, async () => {
        const updated = await query("UPDATE agentcage.runs SET outcome = $2, session = COALESCE($3, session) WHERE id = $1", [
          id,
          text(outcome),
          sessionOf(outcome) ?? null,
        ]);
        if (updated.rowCount === 0) throw notRecorded(id);
      }),
    outcome: async (id) => parsed(await one("SELECT outcome AS value FROM agentcage.runs WHERE id = $1", id)),
    saveA2ATask: (id, task) =>
      inTurn(id, async () => {
        const updated = await query("UPDATE agentcage.runs SET a2a_task = $2 WHERE id = $1", [id, text(task)]);
        if (updated.rowCount === 0) throw notRecorded(id);
      }),
    a2aTask: async (id) => parsed(await one("SELECT a2a_task AS value FROM agentcage.runs WHERE id = $1", id)),
    // The line and the webhooks still owed after it, in one transaction.
    appendDelivery: (id, delivery) =>
      inTurn(id, () =>
        inTransaction(async (client) => {
          const { rows } = await client.query<{ owes: string[] }>("SELECT owes FROM agentcage.runs WHERE id = $1 FOR UPDATE", [id]);
          const before = rows[0]?.owes;
          if (before === undefined) return false;
          await client.query("INSERT INTO agentcage.run_deliveries (run_id, line) VALUES ($1, $2)", [id, JSON.stringify(delivery)]);
          const owes = owedAfter(before, delivery);
          if (owes !== before) await client.query("UPDATE agentcage.runs SET owes = $2 WHERE id = $1", [id, owes ?? []]);
          return true;
        }),
      ),
    deliveries: async (id) => {
      const { rows } = await query<{ line: string }>("SELECT line FROM agentcage.run_deliveries WHERE run_id = $1 ORDER BY position", [id]);
      return rows.map((row) => JSON.parse(row.line) as StoredDelivery);
    },
    // One statement: the Run, its events and deliveries (by cascade) and the idempotency key it made, all or none.
    remove: (id) =>
      inTurn(id, async () => {
        await query("WITH key AS (DELETE FROM agentcage.idempotency_keys WHERE run_id = $1 AND made) DELETE FROM agentcage.runs WHERE id = $1", [id]);
      }),
  };
}
