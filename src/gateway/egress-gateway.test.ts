// startEgressGateway refuses a runtimeDir it cannot make the proxy's control directory in before it
// touches the engine, naming it and saying what to pass, instead of a raw ENOENT from mkdir; and
// when the proxy's image is missing it names what an installed package builds it with.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Engine } from "../engine/index.js";
import { RunRequestError, startEgressGateway } from "../index.js";
import { DEFAULT_EGRESS_IMAGE } from "../subpaths/egress.js";

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

describe("startEgressGateway on an engine without its image", () => {
  /** An engine that holds no image: every create answers as the Engine API does then. */
  const imageless = {
    listByLabel: async () => [],
    remove: async () => undefined,
    create: async () =>
      Promise.reject(
        Object.assign(new Error("(HTTP code 404) no such container - No such image: x"), { statusCode: 404, json: { message: "No such image: x" } }),
      ),
  } as unknown as Engine;

  it("says to build agentcage's own with the package's builder, which the repository's script also runs", async () => {
    const refusal = startEgressGateway({ runtimeDir: scratch, engine: imageless });
    await expect(refusal).rejects.toThrow(RunRequestError);
    await expect(refusal).rejects.toThrow(
      `image ${JSON.stringify(DEFAULT_EGRESS_IMAGE)} is not on this engine (No such image: x); build or load it first, nothing is pulled; build it with \`npx agentcage-build-images orchestrator\` (in agentcage's repository: \`npm run image:orchestrator\`)`,
    );
  });

  it("names the builder of agentcage's own beside an image of the caller's", async () => {
    await expect(startEgressGateway({ runtimeDir: scratch, engine: imageless, image: "mine/proxy:1" })).rejects.toThrow(
      /image "mine\/proxy:1" is not on this engine .*; `npx agentcage-build-images orchestrator` builds agentcage's own, agentcage-orchestrator:latest$/,
    );
  });
});
