// Building and removing an image on the real engine: the tag, labels and build args reach it, a
// failed step is said in the progress and tags nothing, and an image already gone is no error.

import type { Readable } from "node:stream";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { createDockerEngine } from "./docker.js";
import { docker, TEST_IMAGE } from "../../test/support/engine.js";

const engine = createDockerEngine();
const TAG = `agentcage-engine-build-test:${process.pid}`;

/** A build context holding only a Dockerfile. */
function contextOf(dockerfile: string): Readable {
  const pack = tar.pack();
  pack.entry({ name: "Dockerfile", mode: 0o644 }, dockerfile);
  pack.finalize();
  return pack as unknown as Readable;
}

/** The progress as JSON events, once the build has ended. */
async function eventsOf(progress: AsyncIterable<Uint8Array>): Promise<Array<Record<string, unknown>>> {
  const chunks: Buffer[] = [];
  for await (const chunk of progress) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterAll(() => {
  try {
    docker("image", "rm", "--force", TAG);
  } catch {
    // Removed by the test itself.
  }
});

describe("the Docker engine's images", () => {
  it("builds an image under the tag, with the labels and build args given, then removes it; removing it again is no error", async () => {
    const progress = await engine.buildImage({
      context: contextOf(`FROM ${TEST_IMAGE}\nARG WORD\nLABEL word=$WORD\n`),
      tag: TAG,
      dockerfile: "Dockerfile",
      buildArgs: { WORD: "hello" },
      labels: { "agentcage.inputs": "sha256:test" },
    });
    const events = await eventsOf(progress);
    expect(events.filter((event) => "error" in event)).toEqual([]);

    const facts = await engine.inspectImage(TAG);
    expect(facts?.labels).toMatchObject({ word: "hello", "agentcage.inputs": "sha256:test" });
    expect(facts?.id).toBe(docker("image", "inspect", "--format", "{{.Id}}", TAG));

    await engine.removeImage(TAG);
    expect(await engine.inspectImage(TAG)).toBeUndefined();
    await expect(engine.removeImage(TAG)).resolves.toBeUndefined();
  });

  it("says a failed step in its progress, not by rejecting, and tags nothing", async () => {
    const progress = await engine.buildImage({
      context: contextOf(`FROM ${TEST_IMAGE}\nRUN echo about to fail && false\n`),
      tag: TAG,
      dockerfile: "Dockerfile",
      buildArgs: {},
      labels: {},
    });
    const events = await eventsOf(progress);
    expect(events.some((event) => typeof event["error"] === "string")).toBe(true);
    expect(await engine.inspectImage(TAG)).toBeUndefined();
  });
});
