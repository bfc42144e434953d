// One image built through an engine: what the engine is given, the build skipped while the inputs
// label matches, the image it replaced dropped, and a refused or failed build said plainly.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildImage, INPUTS_LABEL, inputsHash, readContext, type ImageBuildRequest, type ImageEngine } from "./index.js";

const TAG = "agentcage-build-test:latest";
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });

type Held = { readonly id: string; readonly labels: Readonly<Record<string, string>> };

/** An engine holding images by tag; each build answers `progress` (JSON lines) and, unless it says an error, tags a new id. */
function fakeEngine(progress: readonly object[] = []): { readonly engine: ImageEngine; readonly calls: string[]; readonly images: Map<string, Held> } {
  const images = new Map<string, Held>();
  const calls: string[] = [];
  const engine: ImageEngine = {
    buildImage: async ({ context, tag, dockerfile, buildArgs, labels }) => {
      let bytes = 0;
      for await (const chunk of context) bytes += (chunk as Uint8Array).length;
      calls.push(`buildImage ${tag} ${dockerfile} ${JSON.stringify(buildArgs)} ${bytes > 0 ? "with" : "without"} context`);
      const failed = progress.some((event) => "error" in event);
      if (!failed) images.set(tag, { id: `sha256:${calls.length}`, labels });
      return Readable.from(progress.map((event) => Buffer.from(`${JSON.stringify(event)}\n`)));
    },
    inspectImage: async (tag) => {
      calls.push(`inspectImage ${tag}`);
      const held = images.get(tag);
      return held === undefined ? undefined : { ...held, created: "", os: "linux", arch: "amd64" };
    },
    removeImage: async (idOrTag) => {
      calls.push(`removeImage ${idOrTag}`);
    },
  };
  return { engine, calls, images };
}

let request: ImageBuildRequest;
beforeEach(async () => {
  const contextDir = await mkdtemp(path.join(tmpdir(), "agentcage-build-image-"));
  await writeFile(path.join(contextDir, "Dockerfile"), "FROM scratch\n");
  request = { tag: TAG, contextDir, buildArgs: { A: "1" } };
});
afterEach(async () => {
  await rm(request.contextDir, { recursive: true, force: true });
});

describe("buildImage", () => {
  it("gives the engine the packed context, tag, Dockerfile, args and inputs label, and skips the build while they are unchanged", async () => {
    const { engine, calls, images } = fakeEngine();
    expect(await buildImage({ ...request, engine, output: quiet })).toMatchObject({ tag: TAG, built: true });
    const hash = inputsHash(await readContext(request.contextDir), request.buildArgs);
    expect(images.get(TAG)?.labels).toEqual({ [INPUTS_LABEL]: hash });
    expect(calls).toEqual([`inspectImage ${TAG}`, `buildImage ${TAG} Dockerfile {"A":"1"} with context`, `inspectImage ${TAG}`]);

    calls.length = 0;
    expect(await buildImage({ ...request, engine, output: quiet })).toMatchObject({ tag: TAG, built: false });
    expect(calls).toEqual([`inspectImage ${TAG}`]);
  });

  it("drops the image it replaced once the new one carries the inputs label", async () => {
    const { engine, calls, images } = fakeEngine();
    images.set(TAG, { id: "sha256:old", labels: { [INPUTS_LABEL]: "sha256:stale" } });
    expect(await buildImage({ ...request, engine, output: quiet })).toMatchObject({ built: true });
    expect(calls.at(-1)).toBe("removeImage sha256:old");
  });

  it("says the engine refused a build it would not take, in the engine's own words", async () => {
    const { engine } = fakeEngine();
    const refusing: ImageEngine = {
      ...engine,
      buildImage: async () => {
        throw Object.assign(new Error("(HTTP code 500) server error"), { statusCode: 500, json: { message: "no space left on device" } });
      },
    };
    await expect(buildImage({ ...request, engine: refusing, output: quiet })).rejects.toThrow(`the engine refused to build ${TAG}: no space left on device`);
  });

  it("says which step failed, with the last line it printed, and keeps the image it had", async () => {
    const { engine, calls, images } = fakeEngine([
      { stream: "Step 1/1 : RUN false\n" },
      { stream: "boom\n" },
      { error: "exit code 1", errorDetail: { message: "exit code 1" } },
    ]);
    images.set(TAG, { id: "sha256:old", labels: {} });
    await expect(buildImage({ ...request, engine, output: quiet })).rejects.toThrow(`building ${TAG} failed: exit code 1 (its last output: "boom")`);
    expect(calls.filter((call) => call.startsWith("removeImage"))).toEqual([]);
  });

  it("refuses both an engine and a docker connection, and an engine that is not one", async () => {
    const { engine } = fakeEngine();
    await expect(buildImage({ ...request, engine, docker: {} as never })).rejects.toThrow("buildImage was given both engine and docker; pass one, not both");
    await expect(buildImage({ ...request, engine: {} as ImageEngine })).rejects.toThrow(
      "buildImage's engine is not an Engine; pass createDockerEngine(...), or a dockerode instance as docker",
    );
  });
});
