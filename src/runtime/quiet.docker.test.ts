// The library as a program embeds it: a process of its own runs a Run through the built dist/ with
// the default options, and prints nothing on stderr (no JSON log line) unless it passed a logger.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../../test/support/command.js";
import { TEST_IMAGE } from "../../test/support/engine.js";

const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), "agentcage-quiet-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A program that runs one Run with the runtime's defaults, `logger` (its source text) added when given. */
function program(logger?: string): string {
  return `
import { pino } from "pino";
import { createAgentContainerRuntime } from ${JSON.stringify(join(REPO, "dist/index.js"))};
const runtime = createAgentContainerRuntime({
  container: { image: ${JSON.stringify(TEST_IMAGE)}, staging: { runtimeDir: ${JSON.stringify(root)} }${logger === undefined ? "" : `, logger: ${logger}`} },
  run: () => ({ args: ["sh", "-c", "echo ok"], stdin: "", outcome: async () => ({ ok: true }) }),
});
const outcome = await runtime.run({ text: "" });
process.stdout.write(outcome.reason);
`;
}

describe("the library's log", () => {
  it("is silent by default: a Run prints nothing on stderr", async () => {
    const done = await run(process.execPath, ["--input-type=module", "-e", program()], { cwd: REPO });
    expect(done.stdout).toBe("completed");
    expect(done.stderr).toBe("");
  }, 60_000);

  it("goes where a logger the program passes sends it", async () => {
    const done = await run(process.execPath, ["--input-type=module", "-e", program('pino({ level: "info" }, pino.destination(2))')], { cwd: REPO });
    expect(done.stdout).toBe("completed");
    expect(done.stderr).toMatch(/^\{"level":30,/);
  }, 60_000);
});
