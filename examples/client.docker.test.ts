// The client example of docs/service.md, compiled as a user would run it, against a real `agentcage serve
// --stand-in`: the agent's answer on stdout and exit 0; a wrong token said with its status, exit 2.
// And docs/service.md shows this very program, its import aside.

import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PLAIN_ANSWER } from "../test/stand-in/index.js";
import { commandEnv } from "../test/support/command.js";
import { useTestService } from "../test/support/service.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const EXAMPLE = path.join(REPO, "dist-tools", "examples", "client.js");
const service = useTestService("client-example");

async function example(token: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = commandEnv({ AGENTCAGE_URL: service.running().url, AGENTCAGE_TOKEN: token });
  return promisify(execFile)(process.execPath, [EXAMPLE, "What is the capital of France?"], { env, timeout: 90_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe("the client example", () => {
  it("prints the agent's answer as it comes and how the Run ended", async () => {
    const done = await example(service.token());
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(`${PLAIN_ANSWER}\n`);
    expect(done.stderr).toMatch(/^Run [0-9a-f]{16}: completed$/m);
  }, 120_000);

  it("says a wrong token was refused, naming the status, and exits 2", async () => {
    const done = await example("not-the-services-token");
    expect(done.code).toBe(2);
    expect(done.stderr).toContain("HTTP 401 unauthorized");
    expect(done.stderr).not.toContain("not-the-services-token");
  }, 60_000);

  it("is the program docs/service.md shows", () => {
    const program = readFileSync(path.join(REPO, "examples", "client.ts"), "utf8");
    const body = program
      .slice(program.indexOf("import {"))
      .replace('from "../src/client/index.js"; // in your project: "agentcage/client"', 'from "agentcage/client";');
    const page = readFileSync(path.join(REPO, "docs", "service.md"), "utf8");
    expect(page).toContain(body.trim());
  });
});
