// The postgres project's globalSetup: one Postgres cluster of the tests' own (postgres.ts) for the
// whole run, its URL handed to every test file through TEST_POSTGRES_ENV, stopped at the end. A
// cluster that cannot start fails the run.

import { startTestPostgres, TEST_POSTGRES_ENV } from "./postgres.js";

export default async function setup(): Promise<() => Promise<void>> {
  const cluster = await startTestPostgres();
  process.env[TEST_POSTGRES_ENV] = cluster.url;
  return async () => {
    delete process.env[TEST_POSTGRES_ENV];
    await cluster.stop();
  };
}
