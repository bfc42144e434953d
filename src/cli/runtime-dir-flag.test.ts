// --runtime-dir on every command that takes it: a path that names a file, or lies under one, is
// refused before anything starts, naming the option and quoting the value (exit 2), never an
// EEXIST or ENOTDIR from the first mkdir or read under it.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CommanderError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askProgram } from "../../test/support/program.js";

const COMMANDS = [["run", "claude", "hi", "--stand-in"], ["plan", "claude", "hi"], ["serve"], ["mcp", "--stand-in"], ["sweep"], ["doctor"], ["runs", "ls"]];

describe("--runtime-dir naming a file", () => {
  let root = "";
  let file = "";
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "agentcage-runtime-dir-"));
    file = join(root, "a-file");
    await writeFile(file, "");
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it.each(COMMANDS)("is refused by %s, naming --runtime-dir", async (...words) => {
    const asked = await askProgram([...words, "--runtime-dir", file], {});
    expect(asked.thrown).toBeInstanceOf(CommanderError);
    // main.ts gives every CommanderError but help's and version's exit 2.
    expect((asked.thrown as CommanderError).exitCode).not.toBe(0);
    expect(asked.stderr).toContain(`--runtime-dir ${JSON.stringify(file)} is a file, not a directory; name a directory, or a path where one can be made`);
    expect(asked.stderr).not.toMatch(/EEXIST|ENOTDIR/);
  });

  it("is refused when a file stands where a directory above it should be", async () => {
    const under = join(file, "agentcage");
    const asked = await askProgram(["sweep", "--runtime-dir", under], {});
    expect(asked.thrown).toBeInstanceOf(CommanderError);
    expect(asked.stderr).toContain(
      `--runtime-dir ${JSON.stringify(under)} lies under ${JSON.stringify(file)}, a file; name a directory, or a path where one can be made`,
    );
  });
});
