// The test Postgres for one test file: the run's cluster when the postgres project's globalSetup
// (postgres-once.ts) started one, else a cluster started for the file and stopped after it (an
// engine test that needs Postgres too). Each store under test gets a new empty database of its own.

import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, START_TIMEOUT_S, startTestPostgres, TEST_POSTGRES_ENV, type TestPostgres } from "./postgres.js";

/**
 * The cluster for this test file: the run's own (postgres-once.ts, through TEST_POSTGRES_ENV), or,
 * when the file runs in a project without it, one started for the file and stopped after it.
 * Call at the top of a file; `url()` is ready inside its tests.
 */
export function useTestPostgres(): { readonly url: () => string; readonly database: () => Promise<string> } {
  let own: TestPostgres | undefined;
  let url = process.env[TEST_POSTGRES_ENV];
  beforeAll(async () => {
    if (url !== undefined) return;
    own = await startTestPostgres();
    url = own.url;
  }, START_TIMEOUT_S * 2_000);
  afterAll(async () => {
    await own?.stop();
  });
  const ready = (): string => {
    if (url === undefined) throw new Error("the test Postgres is not started yet: call url() inside a test");
    return url;
  };
  return { url: ready, database: () => createTestDatabase(ready()) };
}
