// The entries bound on staged inputs, with MAX_INPUT_ENTRIES lowered to 5 for this file only:
// staging 100,001 real entries takes about 40 s here, so the count is checked on a small tree and
// the real value is pinned in inputs.test.ts.

import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { copyInputs, StagingError, type RunInputs } from "./inputs.js";

vi.mock("./limits.js", async (importOriginal) => ({ ...(await importOriginal<typeof import("./limits.js")>()), MAX_INPUT_ENTRIES: 5 }));

let scratch: string;
let source: string;
let work: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "agentcage-input-entries-"));
  source = join(scratch, "source");
  work = join(scratch, "work");
  await mkdir(source);
  await mkdir(work);
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function refusal(inputs: RunInputs): Promise<StagingError> {
  const error = await copyInputs(inputs, work, { fileMode: 0o444 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(StagingError);
  return error as StagingError;
}

describe("MAX_INPUT_ENTRIES (lowered to 5)", () => {
  it("copies exactly 5 entries: a directory, files and a link all count", async () => {
    await mkdir(join(source, "dir"));
    await writeFile(join(source, "dir", "a.txt"), "a");
    await symlink("dir/a.txt", join(source, "link"));

    const copied = await copyInputs({ directory: source, files: { "b.txt": "b", "c.txt": "c" } }, work, { fileMode: 0o444 });

    expect(copied).toEqual({ entries: 5, bytes: 3 });
  });

  it("refuses a sixth entry of the input directory, naming it", async () => {
    await mkdir(join(source, "dir"));
    for (const name of ["1", "2", "3", "4", "5"]) await writeFile(join(source, "dir", name), "");

    const error = await refusal({ directory: source });

    expect(error.kind).toBe("invalid_input");
    // opendir's order is the file system's, so which entry is the sixth is not fixed.
    expect(error.message).toMatch(/^inputs have more than 5 entries \(MAX_INPUT_ENTRIES\) at "dir\/[1-5]"; hand over a smaller tree$/);
  });

  it("counts files handed over with the input directory's entries", async () => {
    for (const name of ["1", "2", "3", "4", "5"]) await writeFile(join(source, name), "");

    const error = await refusal({ directory: source, files: { "sixth.txt": "6" } });

    expect(error.kind).toBe("invalid_input");
    expect(error.message).toBe('inputs have more than 5 entries (MAX_INPUT_ENTRIES) at "sixth.txt"; hand over a smaller tree');
    expect((await readdir(work)).sort()).toEqual(["1", "2", "3", "4", "5"]);
  });
});
