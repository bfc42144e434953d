// startEgressGateway refuses a runtimeDir it cannot make the proxy's control directory in before it
// touches the engine, naming it and saying what to pass, instead of a raw ENOENT from mkdir.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RunRequestError, startEgressGateway } from "../index.js";

const scratch = await mkdtemp(join(tmpdir(), "agentcage-gateway-dir-"));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe("startEgressGateway's runtimeDir", () => {
  it.each([
    ["relative", "staging", /^runtimeDir "staging" is not an absolute path; pass the Staging Directory/],
    ["missing", join(scratch, "nowhere"), /^runtimeDir ".*nowhere" is not there \(ENOENT\); make it first/],
  ])("refuses a %s one, naming it", async (_what, runtimeDir, message) => {
    const refusal = startEgressGateway({ runtimeDir });
    await expect(refusal).rejects.toThrow(RunRequestError);
    await expect(startEgressGateway({ runtimeDir })).rejects.toThrow(message);
  });

  it("refuses a file, naming it", async () => {
    const file = join(scratch, "a-file");
    await writeFile(file, "");
    await expect(startEgressGateway({ runtimeDir: file })).rejects.toThrow(/is not a directory; make it first/);
  });
});
