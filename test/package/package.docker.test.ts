// The npm package against the real engine: from a fresh project with the tarball installed, its
// bin builds the stand-in model's image, and agentcage/testing starts the stand-in, which a
// container run through the installed library reaches over `container:<name>` and nothing else;
// its builder builds the orchestrator image (under a tag of this test's, so the repository's
// agentcage-orchestrator:latest other tests run is left alone), and startEgressGateway runs it.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EGRESS_CONSUMER, STAND_IN_CONSUMER } from "./consumer.js";
import { installTarball, packPackage, run } from "./packed-package.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
/** Packing (two compiles) and installing offline: three times what it takes on a busy 2-core machine, where it ran past 90 s. */
const PACK_TIMEOUT_MS = 240_000;
const BUILD_TIMEOUT_MS = 300_000;
/**
 * The installed package's orchestrator image. Kept between runs like every image here: the next
 * build of the same inputs is reused, and the layers it shares with the repository's (Node, the
 * production dependencies of the same package.json and lock) come from the engine's cache.
 */
const PACKAGE_ORCHESTRATOR_IMAGE = "agentcage-orchestrator:package-test";

let work = "";
let consumer = "";

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "agentcage-pack-"));
  const packed = await packPackage(repoRoot, path.join(work, "package"), work);
  consumer = path.join(work, "consumer");
  await installTarball(repoRoot, packed, consumer);
  await writeFile(path.join(consumer, "stand-in.mjs"), STAND_IN_CONSUMER);
  await writeFile(path.join(consumer, "egress.mjs"), EGRESS_CONSUMER);
}, PACK_TIMEOUT_MS);

afterAll(async () => {
  if (work !== "") await rm(work, { recursive: true, force: true });
});

describe("the installed package", () => {
  it(
    "builds the stand-in model's image with its bin",
    async () => {
      const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
      const { stderr } = await run(bin, ["stand-in"], { cwd: consumer, env: process.env, timeoutMs: BUILD_TIMEOUT_MS });
      expect(stderr).toMatch(/agentcage-build-images: (built|reused) agentcage-stand-in:latest in [0-9.]+ s\n$/);
    },
    BUILD_TIMEOUT_MS,
  );

  it("starts the stand-in model, which a container joining it reaches on loopback", async () => {
    const { stdout } = await run(process.execPath, [path.join(consumer, "stand-in.mjs")], { cwd: consumer, env: process.env });
    const report = JSON.parse(stdout.trim()) as { reason: string; error?: string; text?: string; requests: Array<{ method?: string; path?: string }> };
    expect(report).toMatchObject({ reason: "completed", text: "stand-in model, scenario plain\n" });
    expect(report.requests).toContainEqual(expect.objectContaining({ method: "GET", path: "/" }));
  });

  it(
    "builds the orchestrator image with the inputs its bin's dry run names, and startEgressGateway runs it",
    async () => {
      const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
      const dryRun = await run(bin, ["orchestrator", "--dry-run"], { cwd: consumer, env: process.env });
      const [, hash] = /^agentcage-orchestrator:latest inputs ([0-9a-f]{64}) from /.exec(dryRun.stdout) ?? [];
      expect(hash, dryRun.stdout).toBeDefined();
      const { stdout } = await run(process.execPath, [path.join(consumer, "egress.mjs"), PACKAGE_ORCHESTRATOR_IMAGE], {
        cwd: consumer,
        env: process.env,
        timeoutMs: BUILD_TIMEOUT_MS,
      });
      const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as { tag: string; built: boolean; inputs: string; running: boolean; unknown: unknown };
      expect(report).toMatchObject({ tag: PACKAGE_ORCHESTRATOR_IMAGE, inputs: hash, running: true, unknown: null });
    },
    BUILD_TIMEOUT_MS,
  );
});
