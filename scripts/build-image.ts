// The repository's way to build agentcage's images (agent, stand-in) through the Engine API, as
// provisioning does; the logic lives in src/testing (buildImagesCommand), shared with the package's
// `agentcage-build-images`. This file only makes the dockerode connection, as the bin does.
// CLI: `node dist-tools/scripts/build-image.js [--dry-run] [agent] [stand-in]` (after `npm run build:tools`).

import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import Docker from "dockerode";
import { buildImagesCommand } from "../src/testing/index.js";

export type { BuildImageOptions, BuildImageResult, BuildProgress, ContextFile, ExtraFile } from "../src/testing/index.js";
export {
  AGENT_IMAGE,
  agentBuildArgs,
  BUILD_CA_NAME,
  buildCaCertsFile,
  buildImage,
  CLI_BUILD_ARGS,
  HOST_CA_BUNDLE,
  INPUTS_LABEL,
  inputsHash,
  packContext,
  parseClisEnv,
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

if (isEntry()) process.exitCode = await buildImagesCommand(process.argv.slice(2), { docker: new Docker() });
