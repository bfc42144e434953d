// Each backend's check says why it cannot run an agent now, in its own general words (what /readyz
// tells anyone): one engine by what failed, each of several by the name it was given, and nothing
// when it can. The words are the backend's, so the service asks them and never the check's shape.

import { describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { checkEngine } from "./runtime-check.js";

const IMAGE = "agentcage-agent:latest";

describe("a Docker engine's check", () => {
  it("says nothing when the engine answers and holds the image", async () => {
    expect(await checkEngine(createFakeEngine({}, { images: { [IMAGE]: {} } }), IMAGE)).toEqual({ engine: true, image: true, unready: [] });
  });

  it("says the image is missing when the engine answers without it", async () => {
    expect((await checkEngine(createFakeEngine({}, { images: {} }), IMAGE)).unready).toEqual(["the agent image is not on the engine"]);
  });

  it("says the engine does not answer (and so neither does its image) when its ping fails", async () => {
    const engine = createFakeEngine({}, { fail: { ping: new Error("connect ECONNREFUSED /var/run/docker.sock") } });
    const checked = await checkEngine(engine, IMAGE);
    expect(checked.unready).toEqual(["the container engine does not answer", "the agent image is not on the engine"]);
    expect(JSON.stringify(checked)).not.toContain("docker.sock");
  });
});
