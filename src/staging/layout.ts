// Where everything of one Run lives under the Staging Directory, and what the agent may reach of
// it. The one place these names are decided: the mounts, the record and the sweep all read them.

import { join } from "node:path";
import type { Mount } from "../mounts/index.js";

export const RUN_ID_PATTERN = /^[0-9a-f]{16}$/;

export type RunDirectory = {
  readonly runId: string;
  readonly root: string;
  /** The agent's working directory: the caller's inputs, read-only unless work is writable. */
  readonly work: string;
  /** The one place the agent can always write; what is harvested. */
  readonly out: string;
  readonly prompt: string;
  readonly request: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly outcome: string;
  /** Written last, atomically: a Run directory without it belongs to a Run that did not end well. */
  readonly done: string;
  /** Who made this directory and when; the sweep reads it. */
  readonly info: string;
  /** Per-Run secret files (a login), mounted read-only; removed with the Run, kept record or not. */
  readonly secrets: string;
  /** With a writable work/: what the agent changed, collected here for the Harvest. */
  readonly changes: string;
  /** The Run's working copy of a session store, mounted writable where the agent keeps its sessions. */
  readonly session: string;
};

export function runDirectory(runtimeDir: string, runId: string): RunDirectory {
  const root = join(runtimeDir, runId);
  const work = join(root, "work");
  return {
    runId,
    root,
    work,
    out: join(work, "out"),
    prompt: join(root, "prompt.txt"),
    request: join(root, "request.json"),
    stdout: join(root, "stdout.txt"),
    stderr: join(root, "stderr.txt"),
    outcome: join(root, "outcome.json"),
    done: join(root, "done"),
    info: join(root, "run.json"),
    secrets: join(root, "secrets"),
    changes: join(root, "changes"),
    session: join(root, "session"),
  };
}

/** A file only this Run's agent may read, at a path it expects (e.g. a CLI's login). Secret. */
export type SecretFile = { readonly agentPath: string; readonly content: string | Uint8Array };

/** Where a Run's n-th secret file lives, relative to the Staging Directory. */
export function secretFilePath(runId: string, index: number): string {
  return `${runId}/secrets/${index}`;
}

/** Where the session stores of one namespace (one CLI's) are kept, below the Staging Directory. */
export const SESSIONS_DIRECTORY = "sessions";

/** The kept store of session `id` in `namespace`. */
export function sessionStorePath(runtimeDir: string, namespace: string, id: string): string {
  return join(runtimeDir, SESSIONS_DIRECTORY, namespace, id);
}

/**
 * The Mount Table entries of a staged Run, relative to the Staging Directory: its work/ (and out/),
 * its secret files, and, when it has one, the working copy of its session store.
 */
export function stagedMounts(
  runId: string,
  agentWorkdir: string,
  writableWork: boolean,
  secretPaths: readonly string[] = [],
  sessionAgentPath?: string,
): Mount[] {
  const work = { agentPath: agentWorkdir, path: `${runId}/work`, readOnly: !writableWork };
  const secrets = secretPaths.map((agentPath, index) => ({ agentPath, path: secretFilePath(runId, index), readOnly: true }));
  const session = sessionAgentPath === undefined ? [] : [{ agentPath: sessionAgentPath, path: `${runId}/session` }];
  // With a writable work/ the whole of it is the agent's; out/ needs no mount of its own.
  if (writableWork) return [work, ...secrets, ...session];
  return [work, { agentPath: `${agentWorkdir.replace(/\/+$/, "")}/out`, path: `${runId}/work/out` }, ...secrets, ...session];
}
