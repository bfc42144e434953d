// Compiles the library (dist/), the tools (dist-tools/) and the console (dist/console/) once before the engine tests, which run
// them as a user's process would (a child `agentcage serve`, a contained doctor, the compose
// deployment's image). Both builds are incremental, so an unchanged tree costs a few seconds.

import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

export default async function setup(): Promise<void> {
  for (const config of ["tsconfig.build.json", "tsconfig.tools.json"]) {
    await run(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", config], { cwd: REPO }).catch(
      (error: { stdout?: string; message: string }) => {
        throw new Error(`tsc -p ${config} failed before the engine tests: ${(error.stdout ?? "").trim().slice(-3000) || error.message}`);
      },
    );
  }
  // The console's page, which the service serves and the browser tests load.
  await run(process.execPath, [path.join(REPO, "node_modules/vite/bin/vite.js"), "build", "--config", "console/vite.config.ts"], { cwd: REPO }).catch(
    (error: { stderr?: string; message: string }) => {
      throw new Error(`vite build of the console failed before the engine tests: ${(error.stderr ?? "").trim().slice(-3000) || error.message}`);
    },
  );
}
