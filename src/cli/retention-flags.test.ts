// --session-retention-days (and AGENTCAGE_SESSION_RETENTION_DAYS) on serve, run and sweep, and serve's
// --run-retention-days: a value that is not a whole number of days from 1 to 3650 is refused before
// anything starts, naming the option (or the variable), quoting the value and saying what to write.
// serve's --writable-bytes (and AGENTCAGE_WRITABLE_BYTES) likewise, in bytes.

import { describe, expect, it } from "vitest";
import { CommanderError } from "commander";
import { UsageError } from "./options.js";
import { askProgram } from "../../test/support/program.js";

/** Parses the words; resolves with what was refused. Nothing here reaches an engine. */
async function refusal(words: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const asked = await askProgram([...words, "--runtime-dir", "/nonexistent/agentcage-retention-test"], env);
  // commander prints what it refused; a UsageError is printed by main.ts.
  if (asked.thrown instanceof UsageError) return asked.thrown.message;
  if (asked.thrown === undefined) throw new Error(`${words.join(" ")} was accepted`);
  expect(asked.thrown).toBeInstanceOf(CommanderError);
  return asked.stderr;
}

describe("--session-retention-days", () => {
  it.each([["0"], ["-1"], ["1.5"], ["3651"], ["thirty"], [" "]])("refuses %j on serve, run and sweep", async (value) => {
    for (const words of [["serve"], ["run", "claude", "hi"], ["sweep"]]) {
      const said = await refusal([...words, "--session-retention-days", value]);
      expect(said).toContain(
        `--session-retention-days ${JSON.stringify(value)} is not a whole number of days from 1 to 3650; write how many days a session is kept after its last use, e.g. 30`,
      );
    }
  });

  it.each([["0"], ["1.5"], ["never"]])("--run-retention-days %j is refused on serve, saying how to keep records until DELETE", async (value) => {
    const said = await refusal(["serve", "--run-retention-days", value]);
    expect(said).toContain(
      `--run-retention-days ${JSON.stringify(value)} is not a whole number of days from 1 to 3650; write how many days an ended Run's record and artifacts are kept, e.g. 90, or leave it out to keep them until DELETE`,
    );
  });

  it("refuses a bad AGENTCAGE_SESSION_RETENTION_DAYS, naming the variable", async () => {
    // commander reads an option's variable from this process's environment.
    process.env["AGENTCAGE_SESSION_RETENTION_DAYS"] = "0";
    try {
      // --remote to a port nothing serves: were the value taken, the Run would fail at once, starting nothing here.
      const said = await refusal(["run", "claude", "hi", "--remote", "http://127.0.0.1:9"]);
      expect(said).toContain("AGENTCAGE_SESSION_RETENTION_DAYS");
      expect(said).toContain('"0" is not a whole number of days from 1 to 3650');
    } finally {
      delete process.env["AGENTCAGE_SESSION_RETENTION_DAYS"];
    }
  });

  it("given on the command line with --remote is refused: the service keeps its sessions on its own settings", async () => {
    const said = await refusal(["run", "claude", "hi", "--remote", "http://127.0.0.1:9", "--session-retention-days", "7"]);
    expect(said).toContain("--session-retention-days is the service's to choose with --remote");
  });
});

describe("--writable-bytes", () => {
  it.each([["lots"], ["12"], ["1.5"], ["-1"], [" "], [String(65 * 1024 ** 3)]])("refuses %j on serve, saying what to write", async (value) => {
    const said = await refusal(["serve", "--writable-bytes", value]);
    expect(said).toContain(
      `--writable-bytes ${JSON.stringify(value)} is not a whole number of bytes from 1048576 to 68719476736; write how many bytes each agent may write, e.g. 268435456`,
    );
  });

  it("refuses a bad AGENTCAGE_WRITABLE_BYTES, naming the variable", async () => {
    process.env["AGENTCAGE_WRITABLE_BYTES"] = "12";
    try {
      const said = await refusal(["serve"]);
      expect(said).toContain("from env 'AGENTCAGE_WRITABLE_BYTES'");
      expect(said).toContain('--writable-bytes "12" is not a whole number of bytes');
    } finally {
      delete process.env["AGENTCAGE_WRITABLE_BYTES"];
    }
  });
});
