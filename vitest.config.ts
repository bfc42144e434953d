// Two projects, one after the other: the pure tests first, several files at a time; then the
// engine tests, one file at a time, because they share one daemon and measure limits. A test
// that needs the engine says so in its name (*.docker.test.ts).
import { defineConfig } from "vitest/config";

const ALL = ["src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts", "examples/**/*.test.ts", "console/**/*.test.ts"];
const ENGINE = ALL.map((tests) => tests.replace("*.test.ts", "*.docker.test.ts"));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ALL, exclude: ["**/*.docker.test.ts", "**/node_modules/**"], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: "engine", include: ENGINE, fileParallelism: false, globalSetup: ["test/support/build-once.ts"], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
