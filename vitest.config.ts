// Three projects, one after the other: the pure tests first, several files at a time; then the
// tests over a real Postgres, against one cluster of their own started for the run
// (test/support/postgres-once.ts); then the engine tests, one file at a time, because they share
// one daemon and measure limits. A test that needs the engine says so in its name
// (*.docker.test.ts), one that needs Postgres too (*.postgres.test.ts).
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

const ALL = ["src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "examples/**/*.test.ts", "console/**/*.test.ts"];
const ENGINE = ALL.map((tests) => tests.replace("*.test.ts", "*.docker.test.ts"));
const POSTGRES = ALL.map((tests) => tests.replace("*.test.ts", "*.postgres.test.ts"));
/**
 * The pure tests' files at a time. Most of their time is waiting on real timers (the watchdog's,
 * deadlines, grace periods), not the CPU, so at least 3 even on 2 cores, where vitest's default
 * (one fewer than the cores) ran them one at a time.
 */
const UNIT_FILES_AT_ONCE = Math.max(3, availableParallelism());

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ALL,
          exclude: ["**/*.docker.test.ts", "**/*.postgres.test.ts", "**/node_modules/**"],
          maxWorkers: UNIT_FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "postgres", include: POSTGRES, globalSetup: ["test/support/postgres-once.ts"], sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: "engine", include: ENGINE, fileParallelism: false, globalSetup: ["test/support/build-once.ts"], sequence: { groupOrder: 2 } },
      },
    ],
  },
});
