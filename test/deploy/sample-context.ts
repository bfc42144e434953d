// A tree shaped like the repository after `npm run build && npm run build:tools`, holding what must
// stay out of the orchestrator's build context beside what goes in, under the repository's own
// .dockerignore: what the context tests pick from, ours and Docker's alike.

import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO } from "./docker-compose.js";

export const SAMPLE_TREE = [
  "package.json",
  "package-lock.json",
  "compose.yaml",
  ".env",
  ".git/config",
  "README.md",
  "dist/index.js",
  "dist/index.d.ts",
  "dist/cli/main.js",
  "dist/cli/main.d.ts",
  "dist/cli/main.js.map",
  "dist/server/deep/er/app.js",
  "dist-tools/test/stand-in/main.js",
  "dist-tools/test/stand-in/nested/ignored.js",
  "dist-tools/examples/demo.js",
  "images/agent/Dockerfile",
  "images/agent/clis.env",
  "images/stand-in/Dockerfile",
  "images/orchestrator/Dockerfile",
  "images/orchestrator/entrypoint.sh",
  "images/test/rootfs/bin/busybox",
  "node_modules/fastify/index.js",
  "scripts/agentcage-build-images.js",
  "scripts/provision.sh",
  "src/index.ts",
  "test/support/engine.ts",
];

/** What of SAMPLE_TREE the repository's .dockerignore lets into the context, sorted. */
export const SAMPLE_CONTEXT = [
  "dist-tools/test/stand-in/main.js",
  "dist/cli/main.js",
  "dist/index.js",
  "dist/server/deep/er/app.js",
  "images/agent/Dockerfile",
  "images/agent/clis.env",
  "images/orchestrator/Dockerfile",
  "images/orchestrator/entrypoint.sh",
  "images/stand-in/Dockerfile",
  "package-lock.json",
  "package.json",
  "scripts/agentcage-build-images.js",
];

/** A new temporary directory holding the repository's .dockerignore and SAMPLE_TREE (each file holds its own name); the caller removes it. */
export async function makeSampleRoot(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "agentcage-context-"));
  await writeFile(path.join(root, ".dockerignore"), await readFile(path.join(REPO, ".dockerignore")));
  for (const name of SAMPLE_TREE) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), `${name}\n`);
  }
  return root;
}
