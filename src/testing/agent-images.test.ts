// agentcage's images from a package directory, through a fake engine: what each build is given,
// when it is skipped, under which tag, and what `agentcage-build-images` says and returns.

import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  agentImageRequest,
  AGENT_IMAGE,
  buildAgentImages,
  buildImagesCommand,
  agentImageInputs,
  INPUTS_LABEL,
  inputsHash,
  ORCHESTRATOR_IMAGE,
  packageRoot,
  readContext,
  STAND_IN_IMAGE,
  type ImageEngine,
} from "./index.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CLIS = "CLAUDE_VERSION=1.0.0\nCLAUDE_INTEGRITY=sha512-a\nCODEX_VERSION=0.1.0\nCODEX_INTEGRITY=sha512-b\n";
const ENV = { AGENTCAGE_BUILD_CA_CERTS: "" };

type Built = { readonly tag: string; readonly labels: Readonly<Record<string, string>>; readonly buildArgs: Readonly<Record<string, string>> };

/** An engine that keeps images as tag -> id and labels, and records each build and removal it was asked for. */
function fakeEngine(): {
  readonly engine: ImageEngine;
  readonly builds: Built[];
  readonly removed: string[];
  readonly images: Map<string, { readonly id: string; readonly labels: Readonly<Record<string, string>> }>;
} {
  const images = new Map<string, { readonly id: string; readonly labels: Readonly<Record<string, string>> }>();
  const builds: Built[] = [];
  const removed: string[] = [];
  const engine: ImageEngine = {
    buildImage: async ({ tag, labels, buildArgs }) => {
      builds.push({ tag, labels, buildArgs });
      const id = `sha256:${builds.length}`;
      images.set(tag, { id, labels });
      return Readable.from([Buffer.from(`${JSON.stringify({ stream: "Step 1/1 : FROM scratch\n" })}\n${JSON.stringify({ aux: { ID: id } })}\n`)]);
    },
    inspectImage: async (tag) => {
      const held = images.get(tag);
      return held === undefined ? undefined : { ...held, created: "2025-01-02T03:04:05Z", os: "linux", arch: "amd64" };
    },
    removeImage: async (idOrTag) => {
      removed.push(idOrTag);
    },
  };
  return { engine, builds, removed, images };
}

function sink(): { readonly stream: Writable; readonly text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

let root = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentcage-images-"));
  await mkdir(path.join(root, "images", "agent"), { recursive: true });
  await mkdir(path.join(root, "images", "stand-in"), { recursive: true });
  await mkdir(path.join(root, "dist-tools", "test", "stand-in"), { recursive: true });
  await writeFile(path.join(root, "package.json"), "{}\n");
  await writeFile(path.join(root, "images", "agent", "Dockerfile"), "FROM scratch\n");
  await writeFile(path.join(root, "images", "agent", "clis.env"), CLIS);
  await writeFile(path.join(root, "images", "agent", "fetch-clis.sh"), "#!/bin/sh\n", { mode: 0o755 });
  await writeFile(path.join(root, "images", "stand-in", "Dockerfile"), "FROM scratch\n");
  await writeFile(path.join(root, "dist-tools", "test", "stand-in", "main.js"), "listen();\n");
  // The orchestrator's context: an installed package's, cut by the repository's .dockerignore.
  await cp(path.join(REPO, ".dockerignore"), path.join(root, ".dockerignore"));
  for (const name of ["images/orchestrator/Dockerfile", "dist/cli/main.js", "dist/package-lock.json"]) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), `${name}\n`);
  }
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("packageRoot", () => {
  it("finds the directory holding images/agent above this file", () => {
    expect(packageRoot()).toBe(fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, ""));
  });

  it("says so when no directory above holds the images", () => {
    expect(() => packageRoot(tmpdir())).toThrow(/holds images\/agent\/Dockerfile; agentcage's images are missing/);
  });
});

describe("agentImageRequest", () => {
  it("gives the agent build the pinned CLIs from clis.env, and the stand-in its compiled server under app/", async () => {
    expect(await agentImageRequest("agent", root, ENV)).toEqual({
      tag: AGENT_IMAGE,
      contextDir: path.join(root, "images", "agent"),
      buildArgs: { CLAUDE_VERSION: "1.0.0", CLAUDE_INTEGRITY: "sha512-a", CODEX_VERSION: "0.1.0", CODEX_INTEGRITY: "sha512-b" },
      extraFiles: [],
    });
    expect(await agentImageRequest("stand-in", root, { ...ENV, AGENTCAGE_BASE_IMAGE: "mirror/debian:12" })).toEqual({
      tag: STAND_IN_IMAGE,
      contextDir: path.join(root, "images", "stand-in"),
      buildArgs: { BASE_IMAGE: "mirror/debian:12" },
      extraFiles: [{ name: "app/test/stand-in/main.js", from: path.join(root, "dist-tools", "test", "stand-in", "main.js") }],
    });
  });

  it("says where the compiled stand-in server is missing", async () => {
    await rm(path.join(root, "dist-tools"), { recursive: true });
    await expect(agentImageRequest("stand-in", root, ENV)).rejects.toThrow(
      /dist-tools\/test\/stand-in\/main\.js is missing; in the repository, compile it first \(npm run build:tools\)/,
    );
  });
});

describe("buildAgentImages", () => {
  it("builds all three images labelled with their inputs digest, then reuses them while nothing changed", async () => {
    const { engine, builds } = fakeEngine();
    const output = sink();
    const first = await buildAgentImages({ engine, root, env: ENV, output: output.stream });
    expect(first.map(({ tag, built }) => [tag, built])).toEqual([
      [AGENT_IMAGE, true],
      [STAND_IN_IMAGE, true],
      [ORCHESTRATOR_IMAGE, true],
    ]);
    const request = await agentImageRequest("agent", root, ENV);
    const hash = inputsHash(await readContext(request.contextDir, request.extraFiles), request.buildArgs);
    expect(builds[0]).toEqual({ tag: AGENT_IMAGE, labels: { [INPUTS_LABEL]: hash }, buildArgs: request.buildArgs });
    expect(output.text()).toContain("Step 1/1 : FROM scratch");

    expect(builds[2]).toEqual({ tag: ORCHESTRATOR_IMAGE, labels: { [INPUTS_LABEL]: (await agentImageInputs("orchestrator", root, ENV)).hash }, buildArgs: {} });

    const again = await buildAgentImages({ engine, root, env: ENV, output: output.stream });
    expect(again.map(({ built }) => built)).toEqual([false, false, false]);
    expect(builds).toHaveLength(3);
  });

  it("builds an image under the tag asked for, leaving the default tag alone", async () => {
    const { engine, builds, images } = fakeEngine();
    const [result] = await buildAgentImages({
      engine,
      root,
      env: ENV,
      images: ["orchestrator"],
      tags: { orchestrator: "agentcage-orchestrator:package-test" },
      output: sink().stream,
    });
    expect(result).toMatchObject({ tag: "agentcage-orchestrator:package-test", built: true });
    expect(builds.map((build) => build.tag)).toEqual(["agentcage-orchestrator:package-test"]);
    expect(images.has(ORCHESTRATOR_IMAGE)).toBe(false);
  });

  it("refuses a name that is not one of agentcage's images, quoting it", async () => {
    const { engine } = fakeEngine();
    await expect(buildAgentImages({ engine, root, env: ENV, images: ["agnet" as "agent"] })).rejects.toThrow(
      'image "agnet" is not one of agentcage\'s; write "agent", "stand-in", "orchestrator"',
    );
  });

  it.each([
    [{ orchestrator: "Has Spaces" }, 'tags.orchestrator ("Has Spaces") is not an image reference; write one such as "agentcage-orchestrator:latest"'],
    [{ orchestrator: "" }, 'tags.orchestrator ("") is not an image reference'],
    [{ orchestrator: "UPPER/case:1" }, 'tags.orchestrator ("UPPER/case:1") is not an image reference'],
    [{ egress: "x:1" }, 'tags names "egress", which is not one of agentcage\'s images; write "agent", "stand-in", "orchestrator"'],
  ])("refuses tags %j, naming the option and quoting the value, before building anything", async (tags, message) => {
    const { engine, builds } = fakeEngine();
    await expect(buildAgentImages({ engine, root, env: ENV, tags: tags as Record<string, string> })).rejects.toThrow(message);
    expect(builds).toEqual([]);
  });

  it("takes a tag with a registry host and port", async () => {
    const { engine } = fakeEngine();
    const [result] = await buildAgentImages({
      engine,
      root,
      env: ENV,
      images: ["stand-in"],
      tags: { "stand-in": "mirror.example:5000/team/stand-in:v1" },
      output: sink().stream,
    });
    expect(result?.tag).toBe("mirror.example:5000/team/stand-in:v1");
  });
});

describe("buildImagesCommand", () => {
  async function command(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string; builds: Built[] }> {
    const { engine, builds } = fakeEngine();
    const [stdout, stderr] = [sink(), sink()];
    const status = await buildImagesCommand(args, { engine, root, env: ENV, stdout: stdout.stream, stderr: stderr.stream });
    return { status, stdout: stdout.text(), stderr: stderr.text(), builds };
  }

  it("prints its usage for --help and exits 0", async () => {
    const { status, stdout } = await command(["--help"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: agentcage-build-images \[--dry-run\] \[agent\] \[stand-in\] \[orchestrator\]\n/);
    expect(stdout).toContain(`  orchestrator   ${ORCHESTRATOR_IMAGE}: this package on Node, which startEgressGateway runs`);
    expect(stdout).toContain("with no name, all three");
  });

  it("refuses an unknown argument with its usage and exit status 2, building nothing", async () => {
    const { status, stderr, builds } = await command(["agent", "--push"]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/^agentcage-build-images: "--push" is not an image name or option\nusage: /);
    expect(builds).toEqual([]);
  });

  it("lists each image's tag, digest and context with --dry-run, building nothing", async () => {
    const { status, stdout, builds } = await command(["--dry-run", "stand-in"]);
    const request = await agentImageRequest("stand-in", root, ENV);
    const hash = inputsHash(await readContext(request.contextDir, request.extraFiles), request.buildArgs);
    expect(status).toBe(0);
    expect(stdout).toBe(`${STAND_IN_IMAGE} inputs ${hash} from ${path.join(root, "images", "stand-in")}: Dockerfile app/test/stand-in/main.js\n`);
    expect(builds).toEqual([]);
  });

  it("lists the orchestrator's tag, digest and context from the package root with --dry-run", async () => {
    const { status, stdout, builds } = await command(["orchestrator", "--dry-run"]);
    const inputs = await agentImageInputs("orchestrator", root, ENV);
    expect(status).toBe(0);
    expect(stdout).toBe(`${ORCHESTRATOR_IMAGE} inputs ${inputs.hash} from ${root}: ${inputs.files.join(" ")}\n`);
    expect(inputs.files).toEqual(
      expect.arrayContaining(["package-lock.json", "package.json", "dist/cli/main.js", "images/orchestrator/Dockerfile", "images/agent/clis.env"]),
    );
    expect(inputs.files.filter((name) => name.startsWith("dist/package-lock") || name === ".dockerignore")).toEqual([]);
    expect(builds).toEqual([]);
  });

  it("builds all three when no image is named, the orchestrator last", async () => {
    const { status, builds, stderr } = await command([]);
    expect(status, stderr).toBe(0);
    expect(builds.map((build) => build.tag)).toEqual([AGENT_IMAGE, STAND_IN_IMAGE, ORCHESTRATOR_IMAGE]);
    expect(stderr).toMatch(new RegExp(`agentcage-build-images: built ${ORCHESTRATOR_IMAGE} in [0-9.]+ s\\n$`));
  });

  it("builds the images named, says which it built, and exits 1 with the reason when one cannot be built", async () => {
    const ok = await command(["agent"]);
    expect(ok.status).toBe(0);
    expect(ok.builds.map((build) => build.tag)).toEqual([AGENT_IMAGE]);
    expect(ok.stderr).toMatch(new RegExp(`agentcage-build-images: built ${AGENT_IMAGE} in [0-9.]+ s\\n$`));

    await writeFile(path.join(root, "images", "agent", "clis.env"), "CLAUDE_VERSION=1\n");
    const failed = await command([]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toBe("agentcage-build-images: clis.env does not set CLAUDE_INTEGRITY; add it as one CLAUDE_INTEGRITY=value line\n");
  });
});
