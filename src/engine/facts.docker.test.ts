// What the real engine says of itself, its images and a container's mounts, compared with what
// the docker CLI reads from the same daemon.

import { afterAll, describe, expect, it } from "vitest";
import { createDockerEngine } from "./docker.js";
import { docker, TEST_IMAGE } from "../../test/support/engine.js";

const engine = createDockerEngine();

describe("the Docker engine's facts", () => {
  it("match what the docker CLI reads: server and API version, default runtime, runc's version", async () => {
    const facts = await engine.facts();
    expect(facts.serverVersion).toBe(docker("version", "--format", "{{.Server.Version}}"));
    expect(facts.apiVersion).toBe(docker("version", "--format", "{{.Server.APIVersion}}"));
    expect(facts.defaultRuntime).toBe(docker("info", "--format", "{{.DefaultRuntime}}"));
    expect(facts.runtimes.map((r) => r.name)).toContain(facts.defaultRuntime);
    const runc = facts.components.find((c) => c.name === "runc");
    expect(runc?.version).toMatch(/^v?\d+\.\d+\.\d+/);
    expect(docker("info", "--format", "{{.RuncCommit.ID}}")).toContain(runc?.detail ?? "?");
  });

  it("read an image the engine holds, and nothing of one it does not", async () => {
    const facts = await engine.inspectImage(TEST_IMAGE);
    expect(facts?.id).toBe(docker("image", "inspect", "--format", "{{.Id}}", TEST_IMAGE));
    expect(await engine.inspectImage("agentcage-no-such-image:latest")).toBeUndefined();
  });

  describe("a container's mounts", () => {
    let id = "";
    afterAll(() => {
      if (id !== "") docker("rm", "--force", id);
    });

    it("name the host's source and the container's destination, and nothing for a container that is gone", async () => {
      id = docker("create", "--mount", "type=bind,source=/tmp,target=/from-host,readonly", TEST_IMAGE, "true");
      expect(await engine.mountsOf(id)).toEqual([{ source: "/tmp", destination: "/from-host", readOnly: true }]);
      docker("rm", "--force", id);
      id = "";
      expect(await engine.mountsOf("agentcage-no-such-container")).toBeUndefined();
    });
  });
});
