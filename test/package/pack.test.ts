// The npm package on its own: packed as `npm pack` would, installed into a fresh project with no
// network, type-checked there under the strictest flags with its .d.ts files checked too, and run
// both as an ES module and as CommonJS. No engine: nothing here starts a container.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentImageRequest, inputsHash, readContext } from "../../src/testing/index.js";
import { CJS_CONSUMER, CONSUMER_TSCONFIG, ESM_CONSUMER, type ConsumerReport } from "./consumer.js";
import { installTarball, packPackage, run, type PackedPackage } from "./packed-package.js";
import { unnamedPublicTypes } from "./public-types.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const PACK_TIMEOUT_MS = 90_000;
/** Files a user needs to build images/agent and the stand-in, and to load both entry points. */
const NEEDED = [
  "package.json",
  "README.md",
  "dist/index.js",
  "dist/index.d.ts",
  "dist/testing/index.js",
  "dist/testing/index.d.ts",
  "images/agent/Dockerfile",
  "images/agent/clis.env",
  "images/agent/fetch-clis.sh",
  "images/stand-in/Dockerfile",
  "images/stand-in/package.json",
  "dist-tools/test/stand-in/main.js",
  "scripts/agentcage-build-images.js",
  "scripts/build-debian-base.sh",
];
const MAX_UNPACKED_BYTES = 2 * 1024 * 1024;

let work = "";
let packed: PackedPackage;
let consumer = "";
let compiled: Promise<unknown> | undefined;
/** The consumer compiled once, by the repository's TypeScript, with the consumer's tsconfig. */
const compileConsumer = (): Promise<unknown> => (compiled ??= run(path.join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", consumer], { cwd: consumer }));

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "agentcage-pack-"));
  packed = await packPackage(repoRoot, path.join(work, "package"), work);
  consumer = path.join(work, "consumer");
  await installTarball(repoRoot, packed, consumer);
  await writeFile(path.join(consumer, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG, null, 2));
  await writeFile(path.join(consumer, "esm.mts"), ESM_CONSUMER);
  await writeFile(path.join(consumer, "cjs.cts"), CJS_CONSUMER);
}, PACK_TIMEOUT_MS);

afterAll(async () => {
  if (work !== "") await rm(work, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("holds what a user needs, and no test, source map or TypeScript source", () => {
    const names = packed.files.map((file) => file.path);
    expect(names).toEqual(expect.arrayContaining(NEEDED));
    expect(names.filter((name) => /\.test\.|\.map$|(?<!\.d)\.ts$|^src\/|^test\/|^dist\/shape\//.test(name))).toEqual([]);
    expect(packed.files.reduce((sum, file) => sum + file.size, 0)).toBeLessThan(MAX_UNPACKED_BYTES);
  });

  it("type-checks an ES module and a CommonJS consumer under strict flags, its own .d.ts files included", async () => {
    await compileConsumer();
  });

  it("exports every type of its own that its public signatures reach", () => {
    expect(unnamedPublicTypes(consumer, "esm.mts", ["agentcage", "agentcage/testing"])).toEqual([]);
  });

  it.each(["esm", "cjs"] as const)("runs as %s: commandFor gives the locked-down words and no secret", async (kind) => {
    await compileConsumer();
    const { stdout, stderr } = await run(process.execPath, [path.join(consumer, "out", kind === "esm" ? "esm.mjs" : "cjs.cjs")], { cwd: consumer });
    const report = JSON.parse(stdout.trim()) as ConsumerReport;
    expect(stderr).toBe(""); // require() of the ES module package warns of nothing on Node 20.19+
    expect(report.kind).toBe(kind);
    expect(report.runtimeArgs).toEqual(expect.arrayContaining(["run", "--rm", "--cap-drop", "ALL", "--read-only", "agentcage-test:latest", "sample-agent", "--once"]));
    expect(report.runtimeArgs.join(" ")).toContain("--network none");
    expect(report.agentArgs).toEqual(expect.arrayContaining(["agentcage-agent:latest", "claude"]));
    expect(JSON.stringify(report)).not.toMatch(/declared-secret|run-secret|sk-consumer/);
    expect(report.images).toEqual(["agentcage-agent:latest", "agentcage-stand-in:latest"]);
    expect(report.imageNames).toEqual(["agent", "stand-in", "stand-in"]);
    expect(report.reason).toBe("completed");
  });

  it("builds both images' contexts from the installed package exactly as from the source tree", async () => {
    const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
    const env = { ...process.env, AGENTCAGE_BUILD_CA_CERTS: "" };
    const { stdout } = await run(bin, ["--dry-run"], { cwd: consumer, env });
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const [index, image] of (["agent", "stand-in"] as const).entries()) {
      // The stand-in server is compiled, so its source is the staged package; the agent's is the repository.
      const request = await agentImageRequest(image, image === "agent" ? repoRoot : packed.stageDir, env);
      const hash = inputsHash(await readContext(request.contextDir, request.extraFiles), request.buildArgs, request.dockerfile);
      expect(lines[index]?.startsWith(`${request.tag} inputs ${hash} from ${path.join(consumer, "node_modules", "agentcage")}/`), lines[index]).toBe(true);
    }
    expect(lines[0]).toMatch(/: Dockerfile clis\.env fetch-clis\.sh$/);
    expect(lines[1]).toContain("app/test/stand-in/main.js");
  });

  it("refuses an unknown image name with its usage and exit status 2", async () => {
    const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
    await expect(run(bin, ["agnet"], { cwd: consumer })).rejects.toThrow(/failed \(2\):\nagentcage-build-images: "agnet" is not an image name or option\nusage: /);
  });
});
