// The main job as `npm start` runs it (after its build): examples/start.ts starts `agentcage serve`
// with the stand-in model when no key is set, prints the console's address and a key that signs in,
// and ends with the service when told to stop (SIGTERM here, Ctrl-C at a terminal).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commandEnv, REPO, startCommand } from "../test/support/command.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("npm start", () => {
  it("prints the console's address and a key that signs in, serves the console there, and stops with the service", async () => {
    const started = startCommand(
      ["--port", "0", "--runtime-dir", join(root, "rt")],
      commandEnv({ ANTHROPIC_API_KEY: undefined, CLAUDE_CODE_OAUTH_TOKEN: undefined, OPENAI_API_KEY: undefined, CODEX_API_KEY: undefined }),
      process.execPath,
      [join(REPO, "dist-tools", "examples", "start.js")],
    );
    try {
      await started.stderrHas("the console is at", 60_000);
      // The banner is on stdout, written as the listening line went by.
      for (let i = 0; i < 50 && !started.stdoutSoFar().includes("Ctrl-C"); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const stdout = started.stdoutSoFar();
      const address = /The agentcage console: (\S+)/.exec(stdout)?.[1];
      const key = /Sign in with: +(\S+)/.exec(stdout)?.[1];
      expect(address, stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(stdout).toContain("the stand-in model");
      const page = await fetch(address as string);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app">');
      expect((await fetch(new URL("/v1/runs", address), { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

      started.child.kill("SIGTERM");
      const finished = await started.finished;
      expect(finished.code, finished.stderr).toBe(0);
      expect(finished.stderr).toContain("draining");
    } finally {
      // Told to stop as a person would, whatever failed above: SIGKILL (the harness's last word) would orphan its serve.
      if (started.child.exitCode === null && started.child.signalCode === null) {
        started.child.kill("SIGTERM");
        await started.finished;
      }
    }
  }, 120_000);
});
