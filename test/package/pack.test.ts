// The npm package on its own: packed as `npm pack` would, installed into a fresh project with no
// network, type-checked there under the strictest flags with its .d.ts files checked too, and run
// both as an ES module and as CommonJS; its image builder cuts all three images' contexts from
// the install. No engine: nothing here starts a container.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentImageInputs,
  agentImageRequest,
  inputsHash,
  ORCHESTRATOR_IMAGE,
  orchestratorImageRequest,
  readContext,
  SHIPPED_LOCKFILE,
  withOrchestratorContext,
  type ContextFile,
} from "../../src/testing/index.js";
import { CJS_CONSUMER, CONSUMER_TSCONFIG, ESM_CONSUMER, type ConsumerReport } from "./consumer.js";
import { installTarball, packPackage, run, type PackedPackage } from "./packed-package.js";
import { unnamedPublicTypes } from "./public-types.js";
import { scaledMs } from "../../src/liveness/index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
/** Packing (two compiles) and installing offline: three times what it takes on a busy 2-core machine, where it ran past 90 s, stretched further by the load as every watchdog is. */
const PACK_TIMEOUT_MS = scaledMs(240_000);
/** The package's entry points beside its root, as package.json exports them. */
const SUBPATHS = ["runtime", "kubernetes", "egress", "agents", "testing", "client"] as const;
/** Files a user needs to build images/agent, the stand-in and the orchestrator, and to load every entry point. */
const NEEDED = [
  "package.json",
  "README.md",
  "dist/index.js",
  "dist/index.d.ts",
  "dist/testing/index.js",
  "dist/testing/index.d.ts",
  "dist/client/index.js",
  "dist/client/index.d.ts",
  ...["runtime", "kubernetes", "egress", "agents"].flatMap((name) => [`dist/subpaths/${name}.js`, `dist/subpaths/${name}.d.ts`]),
  "images/agent/Dockerfile",
  "images/agent/clis.env",
  "images/agent/fetch-clis.sh",
  "images/stand-in/Dockerfile",
  "images/stand-in/package.json",
  ".dockerignore",
  "images/orchestrator/Dockerfile",
  "images/orchestrator/entrypoint.sh",
  "images/orchestrator/egress-entrypoint.sh",
  "images/orchestrator/fetch-node.sh",
  "images/orchestrator/node.env",
  SHIPPED_LOCKFILE,
  "dist-tools/test/stand-in/main.js",
  "scripts/agentcage-build-images.js",
  "scripts/build-debian-base.sh",
];
/**
 * The package unpacked: it was just under 2 MiB before agentcage/client (whose API types generated
 * from the OpenAPI document are 166 KB of .d.ts), 2.52 MiB with the Kubernetes backend and the egress proxy's
 * control through the engine, and 2.65 with the proxy in a cluster (dist/kube alone is 110 KB). A bound on bloat,
 * not on features: a jump past it is a file that should not be in the package.
 */
const MAX_UNPACKED_BYTES = 3 * 1024 * 1024;

/** Every file of the orchestrator's build context cut from `root`, as it would be sent. */
async function orchestratorContextFiles(root: string, env: NodeJS.ProcessEnv): Promise<ContextFile[]> {
  return withOrchestratorContext(await orchestratorImageRequest(root, env), (request) => readContext(request.contextDir, request.extraFiles));
}

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
    // The stage holds a CA bundle in images/agent and images/orchestrator, as a developer's tree may: `files` leaves it out.
    expect(names.filter((name) => /build-ca\.crt$|\.env$(?<!node\.env|clis\.env)|^package-lock\.json$/.test(name))).toEqual([]);
    expect(packed.files.reduce((sum, file) => sum + file.size, 0)).toBeLessThan(MAX_UNPACKED_BYTES);
  });

  it("type-checks an ES module and a CommonJS consumer under strict flags, its own .d.ts files included", async () => {
    await compileConsumer();
  });

  it("exports every type of its own that its public signatures reach", () => {
    expect(unnamedPublicTypes(consumer, "esm.mts", ["agentcage", ...SUBPATHS.map((name) => `agentcage/${name}`)])).toEqual([]);
  });

  it.each(["esm", "cjs"] as const)("runs as %s: commandFor gives the locked-down words and no secret", async (kind) => {
    await compileConsumer();
    const { stdout, stderr } = await run(process.execPath, [path.join(consumer, "out", kind === "esm" ? "esm.mjs" : "cjs.cjs")], { cwd: consumer });
    const report = JSON.parse(stdout.trim()) as ConsumerReport;
    expect(stderr).toBe(""); // require() of the ES module package warns of nothing on Node 20.19+
    expect(report.kind).toBe(kind);
    expect(report.runtimeArgs).toEqual(
      expect.arrayContaining(["run", "--rm", "--cap-drop", "ALL", "--read-only", "agentcage-test:latest", "sample-agent", "--once"]),
    );
    expect(report.runtimeArgs.join(" ")).toContain("--network none");
    expect(report.agentArgs).toEqual(expect.arrayContaining(["agentcage-agent:latest", "claude"]));
    expect(JSON.stringify(report)).not.toMatch(/declared-secret|run-secret|sk-consumer/);
    expect(report.images).toEqual(["agentcage-agent:latest", "agentcage-stand-in:latest"]);
    expect(report.imageNames).toEqual(["agent", "stand-in", "orchestrator", "stand-in"]);
    expect(report.reason).toBe("completed");
    expect(report.client).toBe("http://127.0.0.1:8750/ function state undefined");
    expect(report.subpaths).toEqual([
      "agentcage.pool",
      "pod-security.kubernetes.io/enforce",
      "agentcage-orchestrator:latest",
      "anthropic",
      "openai",
      "completed hi",
    ]);
  });

  it("builds all three images' contexts from the installed package exactly as from the source tree", async () => {
    const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
    const env = { ...process.env, AGENTCAGE_BUILD_CA_CERTS: "" };
    const { stdout } = await run(bin, ["--dry-run"], { cwd: consumer, env });
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const [index, image] of (["agent", "stand-in"] as const).entries()) {
      // The stand-in server is compiled, so its source is the staged package; the agent's is the repository.
      const request = await agentImageRequest(image, image === "agent" ? repoRoot : packed.stageDir, env);
      const hash = inputsHash(await readContext(request.contextDir, request.extraFiles), request.buildArgs, request.dockerfile);
      expect(lines[index]?.startsWith(`${request.tag} inputs ${hash} from ${path.join(consumer, "node_modules", "agentcage")}/`), lines[index]).toBe(true);
    }
    expect(lines[0]).toMatch(/: Dockerfile clis\.env fetch-clis\.sh$/);
    expect(lines[1]).toContain("app/test/stand-in/main.js");
    // The orchestrator's: the staged package's files as its .dockerignore cuts them, the shipped lock
    // as package-lock.json, byte for byte and bit for bit (npm install's execute bit on the bin
    // targets left out), so its digest is the staged package's, which is the repository's.
    const installed = path.join(consumer, "node_modules", "agentcage");
    const staged = await agentImageInputs("orchestrator", packed.stageDir, env);
    expect(lines[2]).toBe(`${ORCHESTRATOR_IMAGE} inputs ${staged.hash} from ${installed}: ${staged.files.join(" ")}`);
    const [stagedFiles, installedFiles] = await Promise.all([packed.stageDir, installed].map((root) => orchestratorContextFiles(root, env)));
    expect(installedFiles).toEqual(stagedFiles);
    expect(staged.files).toEqual(
      expect.arrayContaining([
        "package.json",
        "package-lock.json",
        "dist/cli/main.js",
        "dist/egress/main.js",
        "images/orchestrator/Dockerfile",
        "dist-tools/test/stand-in/main.js",
      ]),
    );
    expect(staged.files.filter((name) => /\.d\.ts$|^node_modules\/|^README|build-ca\.crt$|^dist\/package-lock/.test(name))).toEqual([]);
  });

  it("lists the orchestrator in its --help, and dry-runs it alone when named", async () => {
    const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
    expect((await run(bin, ["--help"], { cwd: consumer })).stdout).toMatch(
      /^usage: agentcage-build-images \[--dry-run\] \[agent\] \[stand-in\] \[orchestrator\]\n[\s\S]* {2}orchestrator {3}agentcage-orchestrator:latest: /,
    );
    const { stdout } = await run(bin, ["orchestrator", "--dry-run"], { cwd: consumer, env: { ...process.env, AGENTCAGE_BUILD_CA_CERTS: "" } });
    expect(stdout).toMatch(/^agentcage-orchestrator:latest inputs [0-9a-f]{64} from \S+: [^\n]+\n$/);
  });

  it("refuses an unknown image name with its usage and exit status 2", async () => {
    const bin = path.join(consumer, "node_modules", ".bin", "agentcage-build-images");
    await expect(run(bin, ["agnet"], { cwd: consumer })).rejects.toThrow(
      /failed \(2\):\nagentcage-build-images: "agnet" is not an image name or option\nusage: /,
    );
  });
});
