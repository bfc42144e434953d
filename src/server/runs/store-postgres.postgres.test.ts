// The Postgres Run store against a real Postgres (a cluster of the tests' own, test/support/postgres.ts):
// the Run Store's contract, as the file and in-memory stores meet it; then what only a database
// promises: its schema migrated once however many open it at once, a newer schema refused, keys
// claimed once across stores (processes) over one database, and the queries answered from indexes.

import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { describeRunStoreContract, record } from "../../../test/support/run-store-contract.js";
import { useTestPostgres } from "../../../test/support/use-postgres.js";
import { createPostgresRunStore, maskedStoreUrl, pageQuery, type PostgresRunStore, usageQuery } from "./store-postgres.js";
import { SCHEMA_VERSION } from "./store-postgres-schema.js";

const postgres = useTestPostgres();
const opened: PostgresRunStore[] = [];
const storeAt = (url: string): PostgresRunStore => {
  const store = createPostgresRunStore(url);
  opened.push(store);
  return store;
};
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
});

describeRunStoreContract(
  "the Postgres store",
  async () => {
    const url = await postgres.database();
    return { store: storeAt(url), reopen: async () => storeAt(url) };
  },
  { restarts: true },
);

/** Runs one statement on the database at `url`, outside any store. */
async function sql<R extends pg.QueryResultRow>(url: string, statement: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

describe("the Postgres store's schema", () => {
  it("is migrated once, in one transaction, however many stores open one database at once", async () => {
    const url = await postgres.database();
    const stores = Array.from({ length: 4 }, () => storeAt(url));
    expect(await Promise.all(stores.map((store) => store.prepare()))).toEqual([[], [], [], []]);
    expect(await sql(url, "SELECT version FROM agentcage.schema_migrations ORDER BY version")).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, at) => ({ version: at + 1 })),
    );
  });

  it("refuses a database whose schema is newer than the code, naming both versions and what to do, and writes nothing", async () => {
    const url = await postgres.database();
    await storeAt(url).prepare();
    await sql(url, "INSERT INTO agentcage.schema_migrations (version) VALUES ($1)", [SCHEMA_VERSION + 1]);
    const newer = storeAt(url);
    await expect(newer.prepare()).rejects.toThrow(
      `holds schema version ${SCHEMA_VERSION + 1}, newer than the ${SCHEMA_VERSION} this agentcage knows; run the agentcage version that wrote it (or a newer one), or point --store at another database`,
    );
    await expect(newer.create(record("00000000000000a1"), {})).rejects.toThrow(`schema version ${SCHEMA_VERSION + 1}`);
    expect(await sql(url, "SELECT id FROM agentcage.runs")).toEqual([]);
  });

  it("says where it could not connect without the password in it", async () => {
    const refused = storeAt("postgres://someone:hunter2-secret@127.0.0.1:1/nowhere");
    const error = await refused.prepare().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain("the Run store at postgres://someone:****@127.0.0.1:1/nowhere could not be opened");
    expect(String((error as Error).message)).not.toContain("hunter2-secret");
    expect(maskedStoreUrl("postgres://someone:hunter2-secret@db:5432/runs")).toBe("postgres://someone:****@db:5432/runs");
    expect(maskedStoreUrl("postgres://someone@db/runs")).toBe("postgres://someone@db/runs");
  });
});

describe("the Postgres store over one database, from several processes", () => {
  it("gives an idempotency key to exactly one of the submits racing with it from different stores, the others waiting for its Run", async () => {
    const url = await postgres.database();
    const stores = Array.from({ length: 4 }, () => storeAt(url));
    await Promise.all(stores.map((store) => store.prepare()));
    const ids = stores.map((_, at) => `00000000000000e${at}`);
    const claims = await Promise.all(stores.map((store, at) => store.keys.claim("acme", "k", ids[at] as string)));
    expect(claims.filter((claim) => claim === undefined)).toHaveLength(1);
    const winner = ids[claims.indexOf(undefined)] as string;
    const waiting = claims.filter((claim) => claim !== undefined);
    expect(waiting).toEqual([{ making: expect.any(Promise) }, { making: expect.any(Promise) }, { making: expect.any(Promise) }]);
    // The winner makes its Run in its own store; the others see it from theirs.
    const maker = stores[claims.indexOf(undefined)] as PostgresRunStore;
    await maker.create(record(winner, { idempotencyKey: "k" }), {});
    await maker.keys.made("acme", "k", winner);
    for (const claim of waiting) if (claim !== undefined && "making" in claim) await claim.making;
    for (const store of stores) expect(await store.keys.claim("acme", "k", "00000000000000ff")).toEqual({ made: winner });
    // Removed: the key it made is free again.
    await (stores[0] as PostgresRunStore).remove(winner);
    expect(await (stores[1] as PostgresRunStore).keys.claim("acme", "k", "00000000000000fe")).toBeUndefined();
  });

  it("frees at start a key claimed by a submit that never made its Run (its process ended)", async () => {
    const url = await postgres.database();
    const crashed = storeAt(url);
    await crashed.prepare();
    expect(await crashed.keys.claim("acme", "k", "00000000000000a1")).toBeUndefined();
    const next = storeAt(url);
    await next.prepare();
    expect(await next.keys.claim("acme", "k", "00000000000000a2")).toBeUndefined();
  });
});

describe("the Postgres store's queries", () => {
  it("are answered from indexes: a page, a later page, a filtered page and the usage sums read no table whole", async () => {
    const url = await postgres.database();
    const store = storeAt(url);
    await store.prepare();
    // Many Runs kept, written straight into the table: what the planner weighs its plans on.
    await sql(
      url,
      `INSERT INTO agentcage.runs (id, tenant, state, created_at, cli, labels, ended_ms, reason, record, request)
       SELECT lpad(to_hex(n), 16, '0'), 'tenant-' || (n % 50), 'completed', to_char(timestamp '2026-01-01' + n * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"'),
              'claude', jsonb_build_object('team', 'team-' || (n % 20)), 1767225600000 + n * 1000, 'completed', '{}', '{}'
       FROM generate_series(1, 50000) AS n`,
    );
    await sql(url, "ANALYZE agentcage.runs");
    const plans: Array<[string, { text: string; values: unknown[] }]> = [
      ["a first page", pageQuery({ limit: 50 })],
      ["a later page", pageQuery({ limit: 50, after: { createdAt: "2026-01-01T05:00:00.000Z", id: "0000000000004650" } })],
      ["a tenant's page", pageQuery({ tenant: "tenant-7", limit: 50 })],
      ["a label's page", pageQuery({ labels: [["team", "team-3"]], limit: 50 })],
      ["today's usage", usageQuery(1767225600000 + 49_000 * 1000)],
      ["a tenant's usage today", usageQuery(1767225600000 + 49_000 * 1000, "tenant-7")],
    ];
    for (const [name, { text, values }] of plans) {
      const [{ "QUERY PLAN": plan }] = (await sql<{ "QUERY PLAN": unknown }>(url, `EXPLAIN (FORMAT JSON) ${text}`, values)) as [{ "QUERY PLAN": unknown }];
      expect(JSON.stringify(plan), name).not.toContain('"Seq Scan"');
    }
    // And the store answers them as the index would.
    expect((await store.page({ tenant: "tenant-7", limit: 2 })).records).toHaveLength(2);
  });
});
