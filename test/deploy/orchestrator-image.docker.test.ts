// The orchestrator's build context as Docker itself cuts it: a probe image built by the docker CLI
// (the builder `docker compose build` uses) from a directory with the repository's .dockerignore
// copies its whole context, and what it holds is exactly what scripts/build-image.ts sends, for a
// tree holding what must stay out and for the repository as it is. Then the image built from it:
// what it runs, as whom, and what it holds.

import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orchestratorContextNames } from "../../scripts/build-image.js";
import { docker, TEST_IMAGE } from "../support/engine.js";
import { ORCHESTRATOR_IMAGE, REPO, useCurrentOrchestratorImage } from "./docker-compose.js";
import { makeSampleRoot, SAMPLE_CONTEXT } from "./sample-context.js";

const scratch: string[] = [];

beforeAll(useCurrentOrchestratorImage, 600_000);
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** The files Docker's own context of `root` holds (its .dockerignore applied by the docker CLI), sorted. */
function dockersContext(root: string): string[] {
  const probe = `agentcage-context-probe-${randomBytes(4).toString("hex")}:latest`;
  let names: string[];
  try {
    execFileSync("docker", ["build", "--quiet", "--force-rm", "--file", "-", "--tag", probe, root], {
      input: `FROM ${TEST_IMAGE}\nCOPY . /context\n`,
      env: { ...process.env, DOCKER_BUILDKIT: "0" },
      stdio: ["pipe", "ignore", "pipe"],
    });
    names = docker("run", "--rm", "--network", "none", probe, "find", "/context", "-type", "f").split("\n");
  } finally {
    spawnSync("docker", ["image", "rm", "--force", probe], { stdio: "ignore" }); // gone already when the build failed
  }
  // The builder always sends its .dockerignore; the Dockerfile came on stdin, under a name of the CLI's.
  return names
    .map((name) => name.replace(/^\/context\//, ""))
    .filter((name) => name !== ".dockerignore" && !name.startsWith("__"))
    .sort();
}

describe("the orchestrator's build context", () => {
  it("is what Docker sends for a tree with what must stay out", async () => {
    const root = await makeSampleRoot();
    scratch.push(root);
    expect(dockersContext(root)).toEqual(SAMPLE_CONTEXT);
    expect(await orchestratorContextNames(root)).toEqual(SAMPLE_CONTEXT);
  }, 60_000);

  it("is what Docker sends for the repository as it is", async () => {
    const ours = await orchestratorContextNames(REPO);
    expect(ours).toContain("images/orchestrator/Dockerfile");
    expect(dockersContext(REPO)).toEqual(ours);
  }, 60_000);
});

describe("the orchestrator image", () => {
  const run = (...args: string[]) => docker("run", "--rm", "--network", "none", ...args);

  it("runs the pinned Node as uid 10002 under tini, with serve as its command and a health check", async () => {
    const pinned = /^NODE_VERSION=(.+)$/m.exec(await readFile(join(REPO, "images", "orchestrator", "node.env"), "utf8"))?.[1];
    expect(run("--entrypoint", "node", ORCHESTRATOR_IMAGE, "--version")).toBe(`v${pinned}`);
    const config = JSON.parse(docker("image", "inspect", "--format", "{{json .Config}}", ORCHESTRATOR_IMAGE));
    expect(config).toMatchObject({
      User: "10002:10002",
      Entrypoint: ["/usr/bin/tini", "-g", "--", "/usr/local/bin/agentcage-orchestrator"],
      Cmd: ["agentcage", "serve", "--host", "0.0.0.0", "--port", "8750"],
    });
    expect(config.Healthcheck.Test.join(" ")).toContain("http://127.0.0.1:8750/healthz");
    expect(run(ORCHESTRATOR_IMAGE, "id", "-u")).toBe("10002");
  });

  it("holds the production dependencies only, and nothing setuid or setgid", () => {
    const said = run(
      "--entrypoint",
      "bash",
      ORCHESTRATOR_IMAGE,
      "-c",
      "find / -xdev -perm /6000 | wc -l; for m in fastify dockerode pino vitest typescript vite; do test -d /app/node_modules/$m && echo $m; done; agentcage --help | head -n 1",
    ).split("\n");
    expect(said).toEqual(["0", "fastify", "dockerode", "pino", expect.stringContaining("Usage: agentcage")]);
  });
});
