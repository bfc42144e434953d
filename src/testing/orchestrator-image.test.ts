// What goes into the orchestrator image's build context from an installed package: the files the
// shipped .dockerignore lets in, the shipped lock sent as package-lock.json, nothing of the
// install around it; and the same inputs digest as the repository's for the same files, so an
// image built from either is reused by the other. Pure: no engine.

import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { agentImageInputs, ORCHESTRATOR_DOCKERFILE, ORCHESTRATOR_IMAGE, orchestratorImageRequest, SHIPPED_LOCKFILE } from "./index.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ENV = { AGENTCAGE_BUILD_CA_CERTS: "" };

/** What `npm install` leaves of agentcage under node_modules/agentcage (each file holds its own name). */
const INSTALLED = [
  "package.json",
  "README.md",
  "LICENSE",
  SHIPPED_LOCKFILE,
  "dist/index.js",
  "dist/index.d.ts",
  "dist/cli/main.js",
  "dist/cli/main.d.ts",
  "dist/egress/main.js",
  "dist-tools/test/stand-in/main.js",
  "images/agent/Dockerfile",
  "images/agent/clis.env",
  "images/stand-in/Dockerfile",
  ORCHESTRATOR_DOCKERFILE,
  "images/orchestrator/entrypoint.sh",
  "images/orchestrator/node.env",
  "node_modules/dockerode/index.js",
  "scripts/agentcage-build-images.js",
  "scripts/build-debian-base.sh",
];
/** What of INSTALLED the orchestrator's build is sent, under its name in the context. */
const SENT = [
  "dist-tools/test/stand-in/main.js",
  "dist/cli/main.js",
  "dist/egress/main.js",
  "dist/index.js",
  "images/agent/Dockerfile",
  "images/agent/clis.env",
  ORCHESTRATOR_DOCKERFILE,
  "images/orchestrator/entrypoint.sh",
  "images/orchestrator/node.env",
  "images/stand-in/Dockerfile",
  "package-lock.json",
  "package.json",
  "scripts/agentcage-build-images.js",
];

const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A new directory holding the repository's .dockerignore and these files, each holding `contents(name)`. */
async function tree(names: readonly string[], contents: (name: string) => string = (name) => `${name}\n`): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "agentcage-installed-"));
  scratch.push(root);
  await cp(path.join(REPO, ".dockerignore"), path.join(root, ".dockerignore"));
  for (const name of names) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), contents(name));
  }
  return root;
}

describe("the orchestrator's build context from an installed package", () => {
  it("sends what its Dockerfile copies, the shipped lock as package-lock.json, and nothing else of the install", async () => {
    const root = await tree(INSTALLED);
    const request = await orchestratorImageRequest(root, ENV);
    expect(request.extraFiles?.map((file) => file.name).sort()).toEqual([...SENT].sort());
    expect(request.extraFiles?.find((file) => file.name === "package-lock.json")?.from).toBe(path.join(root, SHIPPED_LOCKFILE));
    expect(request).toMatchObject({ tag: ORCHESTRATOR_IMAGE, dockerfile: ORCHESTRATOR_DOCKERFILE, buildArgs: {} });
    expect((await agentImageInputs("orchestrator", root, ENV)).files).toEqual(SENT);
  });

  it("has the repository's inputs digest when its files are the repository's, npm's execute bits aside, so either's image is reused by the other", async () => {
    // The repository's lock sits at its root; the package's under SHIPPED_LOCKFILE: same bytes, same context.
    const same = (name: string): string => (name === SHIPPED_LOCKFILE || name === "package-lock.json" ? "the lock\n" : `${name}\n`);
    const installed = await tree(INSTALLED, same);
    // npm install makes the package's bin targets executable; tsc leaves them not.
    await chmod(path.join(installed, "dist", "cli", "main.js"), 0o755);
    const repository = await tree([...INSTALLED.filter((name) => name !== SHIPPED_LOCKFILE), "package-lock.json", "src/index.ts", ".env"], same);
    const fromInstall = await agentImageInputs("orchestrator", installed, ENV);
    expect(fromInstall.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await agentImageInputs("orchestrator", repository, ENV)).toEqual({ ...fromInstall, source: repository });
    // And the repository after a prepack (its own lock and the shipped copy): the root's lock, once.
    await writeFile(path.join(repository, SHIPPED_LOCKFILE), "a stale copy\n");
    expect((await agentImageInputs("orchestrator", repository, ENV)).hash).toBe(fromInstall.hash);
  });

  it("builds under the tag asked for, with the same inputs", async () => {
    const root = await tree(INSTALLED);
    const asked = await agentImageInputs("orchestrator", root, ENV, "agentcage-orchestrator:package-test");
    expect(asked).toEqual({ ...(await agentImageInputs("orchestrator", root, ENV)), tag: "agentcage-orchestrator:package-test" });
  });

  it("says which file is missing when the package carries no lock, and what to do", async () => {
    const root = await tree(INSTALLED.filter((name) => name !== SHIPPED_LOCKFILE));
    await expect(orchestratorImageRequest(root, ENV)).rejects.toThrow(
      `${path.join(root, "package-lock.json")} is missing from the orchestrator's build context; in the repository run npm run build and npm run build:tools first, else reinstall agentcage`,
    );
  });

  it("says the .dockerignore that decides the context is missing, naming it", async () => {
    const root = await tree(INSTALLED);
    await rm(path.join(root, ".dockerignore"));
    await expect(orchestratorImageRequest(root, ENV)).rejects.toThrow(
      `${path.join(root, ".dockerignore")} is missing; it decides the orchestrator's build context`,
    );
  });
});

describe("the package that carries it", () => {
  it("ships .dockerignore, images/orchestrator and the lock prepack copies, and no CA bundle of the packing machine", async () => {
    const pkg = JSON.parse(await readFile(path.join(REPO, "package.json"), "utf8")) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files).toEqual(expect.arrayContaining([".dockerignore", "dist", "images/orchestrator", "!images/*/build-ca.crt"]));
    expect(pkg.scripts["prepack"]).toMatch(new RegExp(`&& cp package-lock\\.json ${SHIPPED_LOCKFILE.replace(".", "\\.")}$`));
  });
});
