// What the deployment's tests share: the repository's compose.yaml and the one way they run the
// real docker-compose (Debian's 1.29, which scripts/provision.sh installs): with an env file the
// test wrote and an environment holding nothing of this machine's but PATH, HOME and DOCKER_HOST,
// so no secret or setting of the caller's can reach the file's interpolation. And the orchestrator
// image of the tree as it is: rebuilt when its inputs changed, else reused.

import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { buildOrchestratorImage } from "../../scripts/build-image.js";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const COMPOSE_FILE = join(REPO, "compose.yaml");
/** The override for several engines: `-f compose.yaml -f compose.engines.yaml`. */
export const ENGINES_COMPOSE_FILE = join(REPO, "compose.engines.yaml");
/** What compose.yaml binds for a secret no *_SECRET_FILE names. */
export const NO_SECRET_FILE = join(REPO, "images", "orchestrator", "no-secret");
export const ORCHESTRATOR_IMAGE = "agentcage-orchestrator:latest";
/** The image's user, which the Staging Directory and the secret files must serve. */
export const ORCHESTRATOR_UID = 10002;
/** How long one docker-compose command may take (an `up` of built images, a `down` that drains). */
const COMPOSE_TIMEOUT_MS = 120_000;

export type ComposeOptions = {
  /** The env file compose reads instead of a .env beside compose.yaml. */
  readonly envFile: string;
  /** `-p`: a project name of the test's own; default none (compose's own from the directory). */
  readonly project?: string;
  /** Files laid over compose.yaml, in order (`-f compose.yaml -f ...`); default none. */
  readonly overrides?: readonly string[];
};

/** Runs `docker-compose [-p P] -f compose.yaml [-f OVERRIDE...] --env-file F ARGS...`; returns stdout, throws with stderr. */
export function dockerCompose(options: ComposeOptions, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
  for (const name of ["HOME", "DOCKER_HOST"]) if (process.env[name] !== undefined) env[name] = process.env[name];
  const words = [
    ...(options.project === undefined ? [] : ["-p", options.project]),
    "-f",
    COMPOSE_FILE,
    ...(options.overrides ?? []).flatMap((file) => ["-f", file]),
    "--env-file",
    options.envFile,
    ...args,
  ];
  try {
    return execFileSync("docker-compose", words, { cwd: REPO, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: COMPOSE_TIMEOUT_MS });
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stderr?: string; status?: number | null };
    if (failed.code === "ENOENT") {
      throw new Error(
        "docker-compose is not installed; run npm run provision (as root it installs Debian's docker-compose), or apt-get install docker-compose",
      );
    }
    throw new Error(`docker-compose ${words.join(" ")} failed (exit ${failed.status ?? "?"}): ${(failed.stderr ?? failed.message).trim().slice(-3000)}`);
  }
}

/**
 * Makes agentcage-orchestrator:latest hold this tree's dist/, dist-tools/ and images/ as they are
 * (compile first what should be current): reused in a second when nothing changed.
 */
export async function useCurrentOrchestratorImage(): Promise<void> {
  const progress: string[] = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      progress.push(String(chunk));
      done();
    },
  });
  try {
    await buildOrchestratorImage({ output });
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${progress.join("").slice(-3000)}`);
  }
}
