// The orchestrator image's build context, decided once by the repository's .dockerignore: what
// agentcage's image builder (src/testing) reads of it (the forms it understands, Docker's
// last-match-wins rule over a path and the directories above it), the files it picks from a tree,
// and the inputs digest that decides a rebuild. Pure; orchestrator-image.docker.test.ts compares
// the pick with Docker's own.

import { readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  inContext,
  ORCHESTRATOR_DOCKERFILE,
  ORCHESTRATOR_IMAGE,
  orchestratorContextNames,
  orchestratorImageRequest,
  orchestratorInputsHash,
  parseDockerignore,
} from "../../scripts/build-image.js";
import { REPO } from "./docker-compose.js";
import { makeSampleRoot, SAMPLE_CONTEXT } from "./sample-context.js";

const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function sampleRoot(): Promise<string> {
  const root = await makeSampleRoot();
  scratch.push(root);
  return root;
}

describe("parseDockerignore", () => {
  it("reads exclusions and ! inclusions, skipping comments and blank lines", () => {
    const rules = parseDockerignore("# c\n\n*\n!dist/**/*.js\r\n!images/agent\n");
    expect(rules.map(({ exclude, pattern }) => ({ exclude, pattern }))).toEqual([
      { exclude: true, pattern: "*" },
      { exclude: false, pattern: "dist/**/*.js" },
      { exclude: false, pattern: "images/agent" },
    ]);
  });

  it.each(["dist/?.js", "[ab].js", "../outside", "/absolute", "dist/", "a**b/c", "./dist", "dist//x"])("refuses %j rather than misread it", (pattern) => {
    expect(() => parseDockerignore(`*\n!${pattern}\n`)).toThrow(`line 2 of .dockerignore ("!${pattern}") is not a form agentcage's image builder reads`);
  });
});

describe("inContext", () => {
  const rules = parseDockerignore("*\n!dist/**/*.js\n!images/agent\nimages/agent/secret\n");

  it("lets the last rule that matches a path, or a directory above it, decide", () => {
    expect(inContext(rules, "dist/index.js")).toBe(true);
    expect(inContext(rules, "dist/a/b/c.js")).toBe(true);
    expect(inContext(rules, "dist/index.d.ts")).toBe(false);
    expect(inContext(rules, "images/agent/Dockerfile")).toBe(true);
    expect(inContext(rules, "images/agent/secret/key")).toBe(false);
    expect(inContext(rules, "images/stand-in/Dockerfile")).toBe(false);
    expect(inContext(rules, "package.json")).toBe(false);
  });

  it("takes everything when no rule matches", () => {
    expect(inContext([], "anything/at/all")).toBe(true);
  });
});

describe("the orchestrator's build context", () => {
  it("holds what its Dockerfile copies and nothing else of the tree", async () => {
    expect(await orchestratorContextNames(await sampleRoot())).toEqual(SAMPLE_CONTEXT);
  });

  it("lets through every source the Dockerfile copies from the context", async () => {
    const rules = parseDockerignore(await readFile(path.join(REPO, ".dockerignore"), "utf8"));
    const dockerfile = await readFile(path.join(REPO, ORCHESTRATOR_DOCKERFILE), "utf8");
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) => (m[1] as string).trim().split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      const sample = source.endsWith("/") ? `${source}sample.js` : source.replace("*", "");
      expect([source, inContext(rules, sample)]).toEqual([source, true]);
    }
  });

  it("enters a directory left out only for a rule that names it literally, as Docker's walk does", async () => {
    const root = await sampleRoot();
    await writeFile(path.join(root, ".dockerignore"), "*\n!dist/**/*.js\n!dist-tools/test/stand-in/*.js\n");
    expect(await orchestratorContextNames(root)).toEqual(["dist-tools/test/stand-in/main.js", "dist/index.js"]);
  });

  it("refuses a link in the context, naming it", async () => {
    const root = await sampleRoot();
    await symlink("/etc/hostname", path.join(root, "dist", "linked.js"));
    await expect(orchestratorContextNames(root)).rejects.toThrow(
      `${path.join(root, "dist", "linked.js")} is in the orchestrator's build context but is not a regular file`,
    );
  });

  it("is sent whole, with the CA bundle the environment names and BASE_IMAGE only when set", async () => {
    const root = await sampleRoot();
    const ca = path.join(root, "README.md");
    const request = await orchestratorImageRequest(root, { AGENTCAGE_BUILD_CA_CERTS: ca, AGENTCAGE_BASE_IMAGE: "local/debian:bookworm-slim" });
    expect(request).toMatchObject({ tag: ORCHESTRATOR_IMAGE, dockerfile: ORCHESTRATOR_DOCKERFILE, buildArgs: { BASE_IMAGE: "local/debian:bookworm-slim" } });
    expect(request.extraFiles?.map((file) => file.name)).toEqual([...SAMPLE_CONTEXT, "images/orchestrator/build-ca.crt"]);
    expect(request.extraFiles?.at(-1)?.from).toBe(ca);
    expect((await orchestratorImageRequest(root, { AGENTCAGE_BUILD_CA_CERTS: "" })).buildArgs).toEqual({});
  });

  it("says to build first when the compiled package is missing", async () => {
    const root = await sampleRoot();
    await rm(path.join(root, "dist", "cli", "main.js"));
    await expect(orchestratorImageRequest(root, {})).rejects.toThrow(
      "cli/main.js is missing from the orchestrator's build context; in the repository run npm run build and npm run build:tools first",
    );
  });

  it("has an inputs digest that changes with what is sent and only with that", async () => {
    const root = await sampleRoot();
    const env = { AGENTCAGE_BUILD_CA_CERTS: "" };
    const before = await orchestratorInputsHash(root, env);
    await writeFile(path.join(root, "src", "index.ts"), "changed\n");
    await writeFile(path.join(root, "node_modules", "fastify", "index.js"), "changed\n");
    expect(await orchestratorInputsHash(root, env)).toBe(before);
    await writeFile(path.join(root, "dist", "index.js"), "changed\n");
    expect(await orchestratorInputsHash(root, env)).not.toBe(before);
  });
});
