// agentcage's images from a package directory, through a fake Docker connection: what each build
// is given, when it is skipped, and what `agentcage-build-images` says and returns.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
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
  INPUTS_LABEL,
  inputsHash,
  packageRoot,
  readContext,
  STAND_IN_IMAGE,
  type DockerImages,
} from "./index.js";

const CLIS = "CLAUDE_VERSION=1.0.0\nCLAUDE_INTEGRITY=sha512-a\nCODEX_VERSION=0.1.0\nCODEX_INTEGRITY=sha512-b\n";
const ENV = { AGENTCAGE_BUILD_CA_CERTS: "" };

type Built = { readonly tag: string; readonly labels: Record<string, string>; readonly buildargs: Record<string, string> };

/** A Docker connection that keeps images as tag -> labels, and records each build it was asked for. */
function fakeDocker(): { readonly docker: DockerImages; readonly builds: Built[]; readonly images: Map<string, Record<string, string>> } {
  const images = new Map<string, Record<string, string>>();
  const builds: Built[] = [];
  const docker = {
    buildImage: async (_context: unknown, options: Built & { t: string }) => {
      builds.push({ tag: options.t, labels: options.labels, buildargs: options.buildargs });
      images.set(options.t, options.labels);
      return Readable.from([Buffer.from(`${JSON.stringify({ stream: "Step 1/1 : FROM scratch\n" })}\n${JSON.stringify({ aux: { ID: "sha256:1" } })}\n`)]);
    },
    getImage: (tag: string) => ({
      inspect: async () => {
        const labels = images.get(tag);
        if (labels === undefined) throw Object.assign(new Error(`no such image: ${tag}`), { statusCode: 404 });
        return { Id: `id-of-${tag}`, Config: { Labels: labels } };
      },
      remove: async () => undefined,
    }),
  };
  return { docker: docker as unknown as DockerImages, builds, images };
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
    await expect(agentImageRequest("stand-in", root, ENV)).rejects.toThrow(/dist-tools\/test\/stand-in\/main\.js is missing; in the repository, compile it first \(npm run build:tools\)/);
  });
});

describe("buildAgentImages", () => {
  it("builds both images labelled with their inputs digest, then reuses them while nothing changed", async () => {
    const { docker, builds } = fakeDocker();
    const output = sink();
    const first = await buildAgentImages({ docker, root, env: ENV, output: output.stream });
    expect(first.map(({ tag, built }) => [tag, built])).toEqual([
      [AGENT_IMAGE, true],
      [STAND_IN_IMAGE, true],
    ]);
    const request = await agentImageRequest("agent", root, ENV);
    const hash = inputsHash(await readContext(request.contextDir, request.extraFiles), request.buildArgs);
    expect(builds[0]).toEqual({ tag: AGENT_IMAGE, labels: { [INPUTS_LABEL]: hash }, buildargs: request.buildArgs });
    expect(output.text()).toContain("Step 1/1 : FROM scratch");

    const again = await buildAgentImages({ docker, root, env: ENV, output: output.stream });
    expect(again.map(({ built }) => built)).toEqual([false, false]);
    expect(builds).toHaveLength(2);
  });

  it("refuses a name that is not one of agentcage's images, quoting it", async () => {
    const { docker } = fakeDocker();
    await expect(buildAgentImages({ docker, root, env: ENV, images: ["agnet" as "agent"] })).rejects.toThrow('image "agnet" is not one of agentcage\'s; write "agent" or "stand-in"');
  });
});

describe("buildImagesCommand", () => {
  async function command(args: readonly string[]): Promise<{ status: number; stdout: string; stderr: string; builds: Built[] }> {
    const { docker, builds } = fakeDocker();
    const [stdout, stderr] = [sink(), sink()];
    const status = await buildImagesCommand(args, { docker, root, env: ENV, stdout: stdout.stream, stderr: stderr.stream });
    return { status, stdout: stdout.text(), stderr: stderr.text(), builds };
  }

  it("prints its usage for --help and exits 0", async () => {
    const { status, stdout } = await command(["--help"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: agentcage-build-images \[--dry-run\] \[agent\] \[stand-in\]\n/);
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
