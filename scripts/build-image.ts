// The repository's way to build agentcage's images through the Engine API, as provisioning does:
// agent, stand-in and orchestrator alike go through buildImagesCommand in src/testing, the one
// the package's `agentcage-build-images` runs, from the repository's root (its .dockerignore cuts
// the orchestrator's context, as `docker compose build` does). Invariant: the same files and
// environment give the same inputs digest, so an unchanged image is never built again.
// CLI: `node dist-tools/scripts/build-image.js [--dry-run] [agent] [stand-in] [orchestrator]`
// (after `npm run build:tools`; orchestrator also needs `npm run build`).

import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  agentImageInputs,
  buildImage,
  buildImagesCommand,
  ORCHESTRATOR_DOCKERFILE,
  orchestratorContextNames as contextNamesOf,
  orchestratorImageRequest,
  withOrchestratorContext,
  type BuildImageResult,
  type ImageEngineConnection,
} from "../src/testing/index.js";

export type { BuildImageOptions, BuildImageResult, BuildProgress, ContextFile, ExtraFile, IgnoreRule } from "../src/testing/index.js";
export {
  AGENT_IMAGE,
  agentBuildArgs,
  BUILD_CA_NAME,
  buildCaCertsFile,
  buildImage,
  CLI_BUILD_ARGS,
  HOST_CA_BUNDLE,
  inContext,
  INPUTS_LABEL,
  inputsHash,
  ORCHESTRATOR_DOCKERFILE,
  ORCHESTRATOR_IMAGE,
  orchestratorImageRequest,
  packContext,
  parseClisEnv,
  parseDockerignore,
  readBuildProgress,
  readContext,
  STAND_IN_IMAGE,
} from "../src/testing/index.js";

/** Whether this module is the program node was started with (not imported by a test). */
function isEntry(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

/** The repository's root: the directory above this file (compiled into dist-tools/scripts/ or not) that holds the orchestrator's Dockerfile. */
const REPO_ROOT = ((): string => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ORCHESTRATOR_DOCKERFILE))) return dir;
  }
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
})();

/** The files of `root` (default: the repository) its .dockerignore lets into the orchestrator's build context, sorted. */
export function orchestratorContextNames(root: string = REPO_ROOT): Promise<string[]> {
  return contextNamesOf(root);
}

/** The digest the orchestrator image's `agentcage.inputs` label carries when built from `root` now. */
export async function orchestratorInputsHash(root: string = REPO_ROOT, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return (await agentImageInputs("orchestrator", root, env)).hash;
}

/**
 * Builds agentcage-orchestrator:latest from the repository unless the image of that tag carries the
 * same inputs digest; on the local engine unless `engine` or `docker` names another.
 */
export async function buildOrchestratorImage(
  options: ImageEngineConnection & { root?: string; env?: NodeJS.ProcessEnv; output?: NodeJS.WritableStream } = {},
): Promise<BuildImageResult> {
  const { root, env, ...rest } = options;
  const request = await orchestratorImageRequest(root ?? REPO_ROOT, env ?? process.env);
  return withOrchestratorContext(request, (withContext) => buildImage({ ...withContext, ...rest }));
}

if (isEntry()) process.exitCode = await buildImagesCommand(process.argv.slice(2), { root: REPO_ROOT });
