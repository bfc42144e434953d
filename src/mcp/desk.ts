// What the MCP tools act on: one caller's view of Runs, as the service or the command gives it. The
// tools never touch a Run themselves; every refusal a desk answers is a value with a code of the
// catalogue and a sentence, never a throw, and a Run of another tenant is what an unknown id is.

import type { z } from "zod";
import type { ErrorCode } from "../errors/index.js";

/** Why a desk did not do what it was asked: a code of the catalogue and one sentence saying what to do. */
export type DeskRefusal = { readonly refused: ErrorCode; readonly message: string };

/** A Run's input files: a directory on the desk's own machine (stdio), or an uploaded tar archive (HTTP). */
export type DeskInputs = { readonly directory: string } | { readonly archive: Uint8Array };

/** A Run as the service's API answers it (its record, queue position, Outcome once ended). */
export type DeskRun = { readonly id: string; readonly state: string } & Readonly<Record<string, unknown>>;

/** One persisted event of a Run: its per-Run id, its type (state, agent, metered, end) and its data, secrets masked. */
export type DeskEvent = { readonly id: number; readonly type: string; readonly data: unknown };

/** One harvested file's bytes, cut at `maxBytes`; `size` is the whole file's. */
export type ArtifactBytes = { readonly bytes: Uint8Array; readonly size: number };

export type RunDesk = {
  /** The Run request's schema: the service's own, so a tool validates exactly as POST /v1/runs does. */
  readonly requestSchema: z.ZodObject;
  /** How this desk takes input files. */
  readonly inputs: "directory" | "archive";
  readonly submit: (request: z.output<z.ZodObject>, inputs: DeskInputs | undefined) => Promise<DeskRun | DeskRefusal>;
  readonly status: (id: string) => Promise<DeskRun | DeskRefusal>;
  readonly events: (id: string) => Promise<readonly DeskEvent[] | DeskRefusal>;
  /** Hears each new event of a Run after it is persisted; returns how to stop listening. */
  readonly listen: (id: string, listener: (event: DeskEvent) => void) => () => void;
  readonly cancel: (id: string) => Promise<DeskRun | DeskRefusal>;
  /** What GET /v1/runs/:id/artifacts answers; refused until the Run has ended. */
  readonly artifacts: (id: string) => Promise<Readonly<Record<string, unknown>> | DeskRefusal>;
  readonly readArtifact: (id: string, path: string, maxBytes: number) => Promise<ArtifactBytes | DeskRefusal>;
};

export function isRefusal(value: unknown): value is DeskRefusal {
  return typeof value === "object" && value !== null && "refused" in value && "message" in value;
}
