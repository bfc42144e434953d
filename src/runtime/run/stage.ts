// The stage step: a staged Run's directory under the Staging Directory, with its inputs, prompt
// and secret files, made before anything else of the Run. The Run's deadline and cancel cover it;
// whatever ends it early, nothing of the Run is left on disk and the Outcome says why.

import { resolveAgentUser, DEFAULT_OWNER, type ValidatedContainer } from "../../container/index.js";
import type { EndReason } from "../../plan/index.js";
import { rm } from "node:fs/promises";
import {
  DEFAULT_WRITABLE_BYTES,
  unmountUnder,
  openSessionStore,
  prepareRunDirectory,
  StagingError,
  takeManifest,
  type Manifest,
  type RunDirectory,
  type RunInputs,
  type SecretFile,
} from "../../staging/index.js";
import type { RunStop } from "../stop.js";
import type { Ownership } from "../ownership/index.js";
import type { SessionStoreOptions } from "./run-options.js";

export type StageRequest = {
  readonly runId: string;
  readonly container: ValidatedContainer;
  readonly inputs: RunInputs;
  /** The prompt as it may be kept on disk: secrets already masked. */
  readonly maskedPrompt: string;
  readonly secretFiles: readonly SecretFile[];
  readonly ownership: Ownership;
  /** The Run's session store, whose working copy is made here; default: none. */
  readonly sessionStore?: SessionStoreOptions;
  readonly stop: RunStop;
  /** Bound what the agent writes with a tmpfs this process mounts (writable.ts); false: the runtime bounds it with volumes of the Run's own (out-volume.ts). */
  readonly boundByMount: boolean;
  /** A pool member's work/, adopted as this Run's (prepare.ts adoptedWork); default: a new one. */
  readonly adoptedWork?: string;
};

export type Staged =
  | {
      readonly ok: true;
      readonly directory: RunDirectory;
      /** With a writable work/: what was staged there, to tell the agent's changes from the inputs. */
      readonly manifest?: Manifest;
    }
  | { readonly ok: false; readonly reason: EndReason; readonly error: string };

export async function stageRun(request: StageRequest): Promise<Staged> {
  const { container, stop } = request;
  const staging = container.staging;
  if (staging === undefined) throw new Error("stageRun needs a declaration with staging");
  try {
    const directory = await prepareRunDirectory({
      runtimeDir: staging.runtimeDir,
      runId: request.runId,
      owner: container.owner ?? DEFAULT_OWNER,
      inputs: request.inputs,
      promptText: request.maskedPrompt,
      writableWork: staging.writableWork ?? false,
      agentUser: resolveAgentUser(container.user),
      secretFiles: request.secretFiles.map((file) => file.content),
      ownership: request.ownership,
      ...(request.boundByMount ? { writableBytes: staging.writableBytes ?? DEFAULT_WRITABLE_BYTES } : { ownedInVolume: true }),
      signal: stop.signal,
      ...(request.adoptedWork === undefined ? {} : { adoptedWork: request.adoptedWork }),
    });
    try {
      const store = request.sessionStore;
      if (store !== undefined) {
        const refusal = await openSessionStore(
          directory,
          staging.runtimeDir,
          store.namespace,
          store.resume,
          resolveAgentUser(container.user),
          request.boundByMount,
        );
        if (refusal !== undefined) {
          await unmountUnder(directory.root);
          await rm(directory.root, { recursive: true, force: true });
          return { ok: false, reason: "invalid_request", error: refusal };
        }
      }
      if (!(staging.writableWork ?? false)) return { ok: true, directory };
      return { ok: true, directory, manifest: await takeManifest(directory.work) };
    } catch (error) {
      await unmountUnder(directory.root);
      await rm(directory.root, { recursive: true, force: true });
      throw error;
    }
  } catch (error) {
    const interruption = stop.interruption();
    if (interruption !== undefined) return { ok: false, reason: interruption.why, error: `${interruption.detail} while its inputs were staged` };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: error instanceof StagingError && error.kind === "invalid_input" ? "invalid_request" : "unavailable", error: message };
  }
}
