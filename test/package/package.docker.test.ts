// The npm package against the real engine: from a fresh project with the tarball installed, its
// bin builds the stand-in model's image, and agentcage/testing starts the stand-in, which a
// container run through the installed library reaches over `container:<name>` and nothing else.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STAND_IN_CONSUMER } from "./consumer.js";
import { installTarball, packPackage, run } from "./packed-package.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const PACK_TIMEOUT_MS = 90_000;
const BUILD_TIMEOUT_MS = 300_000;

let work = "";
let consumer = "";

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "agentcage-pack-"));
  const packed = await packPackage(repoRoot, path.join(work, "package"), work);
  consumer = path.join(work, "consumer");
  await installTarball(repoRoot, packed, consumer);
  await writeFile(path.join(consumer, "stand-in.mjs"), STAND_IN_CONSUMER);
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
});
