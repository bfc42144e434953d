// `agentcage image build [agent] [stand-in] [orchestrator] [--dry-run]`: builds agentcage's
// images from the installed package, each only when its inputs changed (the library's
// buildImagesCommand).

import { buildImagesCommand } from "../testing/index.js";
import type { ProgramIo } from "./io.js";

export function buildImages(args: readonly string[], io: ProgramIo): Promise<number> {
  return buildImagesCommand(args, { stdout: io.stdout, stderr: io.stderr, env: io.env as NodeJS.ProcessEnv });
}
