// The Staging Directory probe: does the engine bind the same directory this process writes? A nonce
// file goes into a fresh subdirectory, a locked-down container with that subdirectory mounted
// read-only prints it, and the two are compared. It catches the classic Docker-out-of-Docker
// mistake (the orchestrator's directory mounted at another path than the host's) and an engine on
// another host. Invariant: nothing of a probe outlives it, neither its container nor its files.

import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { basename, join, posix } from "node:path";
import { pino, type Logger } from "pino";
import type { ReaderVerdict } from "../plan/index.js";
import { engineOf, type EngineConnection } from "./engine-facts.js";
import { PREFLIGHT_OUTPUT_BYTES, PREFLIGHT_TIMEOUT_SECONDS } from "./limits.js";
import { createAgentContainerRuntime, describeValue, RunRequestError } from "../runtime/index.js";

/** The owner label of the library's own checking containers, so no sweep of an orchestrator's owner takes them for its Runs. */
export const PREFLIGHT_OWNER = "agentcage-preflight";
/** Where the probe's subdirectory is mounted in its container. */
const PROBE_PATH = "/probe";
const NONCE_FILE = "nonce";

export type StagingProbeOptions = EngineConnection & {
  /** The Staging Directory, absolute, as this process sees it. Created (mode 0700) when missing, as a Run would. */
  readonly runtimeDir: string;
  /** An image with `cat` on its PATH (the agent image has it). */
  readonly image: string;
  /** How long the probe's container may take; default PREFLIGHT_TIMEOUT_SECONDS. */
  readonly timeoutSeconds?: number;
  /** Default: silent (the result says everything). */
  readonly logger?: Logger;
  readonly signal?: AbortSignal;
};

/**
 * Why a probe failed: this process cannot write the Staging Directory (`unwritable`); the engine's
 * host has no such directory (`not_on_engine`); it has one, but not this one (`other_directory`);
 * the container could not read it (`unreadable`, a mode or a security module); the engine failed
 * otherwise (`unavailable`: unreachable, no such image, a timeout).
 */
export type StagingProbeFailure = "unwritable" | "not_on_engine" | "other_directory" | "unreadable" | "unavailable";

export type StagingProbe =
  | { readonly ok: true; readonly runtimeDir: string; readonly durationMs: number }
  | { readonly ok: false; readonly runtimeDir: string; readonly failure: StagingProbeFailure; readonly error: string; readonly durationMs: number };

const OPTION_NAMES = ["docker", "engine", "runtimeDir", "image", "timeoutSeconds", "logger", "signal"];

export async function probeStagingDirectory(options: StagingProbeOptions, ...extra: never[]): Promise<StagingProbe> {
  const startedAt = performance.now();
  if (extra.length > 0) throw new RunRequestError(`probeStagingDirectory takes one argument, { runtimeDir, image }; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null)
    throw new RunRequestError(`probeStagingDirectory's options ${describeValue(options)} is not an object; pass { runtimeDir, image }`);
  const unknown = Object.keys(options).filter((key) => !OPTION_NAMES.includes(key));
  if (unknown.length > 0)
    throw new RunRequestError(`probeStagingDirectory option ${JSON.stringify(unknown[0])} is not one it knows; use ${OPTION_NAMES.join(", ")}`);
  const { runtimeDir, image } = options;
  if (typeof runtimeDir !== "string" || !posix.isAbsolute(runtimeDir)) {
    throw new RunRequestError(
      `runtimeDir ${describeValue(runtimeDir)} is not an absolute path; write the Staging Directory as this process sees it, starting with "/"`,
    );
  }
  if (typeof image !== "string" || image.trim() === "")
    throw new RunRequestError(`image ${describeValue(image)} is not an image reference; write one such as "agentcage-agent:latest"`);
  const engine = engineOf("probeStagingDirectory", {
    ...(options.docker === undefined ? {} : { docker: options.docker }),
    ...(options.engine === undefined ? {} : { engine: options.engine }),
  });
  const elapsed = (): number => Math.round(performance.now() - startedAt);
  const failed = (failure: StagingProbeFailure, error: string): StagingProbe => ({ ok: false, runtimeDir, failure, error, durationMs: elapsed() });

  let probeDir: string;
  const nonce = randomBytes(16).toString("hex");
  try {
    await mkdir(runtimeDir, { recursive: true, mode: 0o700 });
    probeDir = await mkdtemp(join(runtimeDir, ".probe-"));
  } catch (error) {
    return failed("unwritable", `this process cannot create a directory in ${JSON.stringify(runtimeDir)} (${codeOf(error)})`);
  }
  try {
    // Readable by the agent's uid, whichever it is: the nonce is no secret.
    await chmod(probeDir, 0o755);
    await writeFile(join(probeDir, NONCE_FILE), nonce, { flag: "wx", mode: 0o644 });
    await chmod(join(probeDir, NONCE_FILE), 0o644);
  } catch (error) {
    await rm(probeDir, { recursive: true, force: true }).catch(() => undefined);
    return failed("unwritable", `this process cannot write a file in ${JSON.stringify(runtimeDir)} (${codeOf(error)})`);
  }

  try {
    const runtime = createAgentContainerRuntime({
      container: {
        image,
        // cat itself, whatever the image's entrypoint would do with it.
        entrypoint: ["cat"],
        mounts: { runtimeDir, entries: [{ agentPath: PROBE_PATH, path: basename(probeDir), readOnly: true }] },
        owner: PREFLIGHT_OWNER,
        timeoutSeconds: options.timeoutSeconds ?? PREFLIGHT_TIMEOUT_SECONDS,
        logger: options.logger ?? pino({ level: "silent" }),
      },
      engine,
      maxConcurrentRuns: 1,
      run: () => ({ args: [`${PROBE_PATH}/${NONCE_FILE}`], stdin: "", outcome: (stdout) => readNonce(stdout, nonce) }),
    });
    const outcome = await runtime.run({ text: "" }, options.signal === undefined ? {} : { signal: options.signal });
    if (outcome.ok) return { ok: true, runtimeDir, durationMs: elapsed() };
    const error = outcome.error ?? outcome.reason;
    // Docker: "bind source path does not exist: <dir>"; podman: "statfs <dir>: no such file or directory".
    if (
      outcome.reason === "unavailable" &&
      (error.includes("bind source path does not exist") || (error.includes(probeDir) && /no such file or directory/i.test(error)))
    ) {
      return failed("not_on_engine", `the engine's host has no directory ${JSON.stringify(probeDir)}: ${error}`);
    }
    if (outcome.reason === "failed") {
      const said = outcome.stderr.trim();
      if (/no such file/i.test(said))
        return failed(
          "other_directory",
          `the engine mounted a directory at ${JSON.stringify(probeDir)} without the probe file in it (${JSON.stringify(said)})`,
        );
      if (/permission denied|operation not permitted/i.test(said))
        return failed("unreadable", `the probe container could not read the file it was given: ${JSON.stringify(said)}`);
      if (outcome.exit?.code === 0)
        return failed("other_directory", `the engine mounted a directory at ${JSON.stringify(probeDir)} holding another file: ${error}`);
    }
    return failed("unavailable", error);
  } finally {
    await rm(probeDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function readNonce(stdout: AsyncIterable<Uint8Array>, nonce: string): Promise<ReaderVerdict> {
  let text = "";
  for await (const chunk of stdout) {
    if (text.length < PREFLIGHT_OUTPUT_BYTES) text += Buffer.from(chunk).toString("utf8");
  }
  if (text === nonce) return { ok: true };
  return {
    ok: false,
    error: text === "" ? "the probe container printed nothing" : `the probe container printed ${JSON.stringify(text.slice(0, 64))}, not the nonce it was given`,
  };
}

function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
}
