// A staged Run's own volumes under write bound "volume": which of its places get one (its writable
// out/ or work/, its session store's working copy, and under runFiles "engine" its read-only inputs)
// and how big, made before its container, read back once the container is gone (the session store
// first; the inputs never), removed after.
// Invariant: each place is read back whatever ended the Run, under a bound of its own; a read that
// fails is an io_error refusal, never a throw, and never the Run's own stop.

import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import { measureTree, DEFAULT_WRITABLE_BYTES, stagingLimits, type Manifest, type RunDirectory } from "../../staging/index.js";
import { scaledMs } from "../../liveness/index.js";
import { containerDeadlineSeconds } from "./compose.js";
import { ENGINE_ANSWER_MARGIN_MS, ENGINE_CLEANUP_TIMEOUT_MS, OUT_COPY_TIMEOUT_MS } from "../limits.js";
import { openRunVolumes, runVolumeName, type CollectedVolume, type RunVolumeKind, type RunVolumes, type RunVolumeSpec } from "../volumes/index.js";
import { ownershipLabels } from "../ownership/index.js";
import { endEarly, maskedMessage, timeLeftMs, type RunContext, type StepState, type StagedRun } from "./run-state.js";
import { bounded, patientSignal } from "../stop.js";

const { MAX_SESSION_STORE_BYTES, MAX_SESSION_STORE_ENTRIES, MAX_WRITABLE_ENTRIES } = stagingLimits;
/** Past the inputs' file data, what their volume may hold: a page an entry (a tmpfs charges a long link's target one), and a margin. */
const LINK_PAGE_BYTES = 4096;
const INPUTS_SLACK_BYTES = 1024 * 1024;
const INPUTS_SLACK_INODES = 16;

/**
 * Bounded by volumes of the Run's own: its writable place (out/, or all of work/) and its session store;
 * through the engine, a read-only work/'s inputs too; none unstaged or under "mount".
 */
export function volumeKinds<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, staged: StagedRun | undefined): RunVolumeKind[] {
  if (staged === undefined || ctx.writeBound !== "volume") return [];
  const inputs = ctx.runFiles === "engine" && writablePlace(ctx) === "out" ? ["inputs" as const] : [];
  return [...inputs, writablePlace(ctx), ...(ctx.sessionStore === undefined ? [] : ["session" as const])];
}

function writablePlace<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): "work" | "out" {
  return ctx.container.staging?.writableWork === true ? "work" : "out";
}

/** The volume the composed spec mounts at each of the Run's places; undefined when it has none. */
export function runVolumeNames<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, staged: StagedRun | undefined): Record<string, string> | undefined {
  const kinds = volumeKinds(ctx, staged);
  return kinds.length === 0 ? undefined : Object.fromEntries(kinds.map((kind) => [kind, runVolumeName(kind, ctx.runId)]));
}

/** Makes the Run's volumes and fills them with what was staged; the Outcome of a Run that cannot have them, else undefined. */
export async function openVolumes<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  staged: StagedRun | undefined,
): Promise<Outcome<R> | undefined> {
  const kinds = volumeKinds(ctx, staged);
  if (kinds.length === 0 || staged === undefined) return undefined;
  try {
    const volumes = await volumeSpecs(ctx, kinds, staged.directory);
    state.volumes = await openRunVolumes({
      engine: ctx.engine,
      runId: ctx.runId,
      container: ctx.container,
      labels: ownershipLabels(ctx.ownership),
      volumes,
      // It ends by itself a while after the agent's own timer would have, and after each volume had its
      // whole copy-back time (they are read one after another once the agent is gone), those bounds not
      // a user's and so stretched by the load as it is now: the sweep takes what is left.
      holderSeconds:
        containerDeadlineSeconds(timeLeftMs(ctx)) + Math.ceil((ctx.graceMs + scaledMs(ENGINE_ANSWER_MARGIN_MS + kinds.length * OUT_COPY_TIMEOUT_MS)) / 1000),
      signal: state.stop.signal,
    });
  } catch (error) {
    const interruption = state.stop.interruption();
    if (interruption !== undefined) return endEarly(ctx, interruption.why, `${interruption.detail} while its volumes were made`);
    return endEarly(ctx, "unavailable", maskedMessage(ctx, error));
  }
  return undefined;
}

/** Each volume's size: out/ writableBytes; a writable work/ what staging put there plus writableBytes; a session store its bound. */
export async function volumeSpecs<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  kinds: readonly RunVolumeKind[],
  directory: RunDirectory,
): Promise<RunVolumeSpec[]> {
  const writableBytes = ctx.container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES;
  const specs: RunVolumeSpec[] = [];
  for (const kind of kinds) {
    if (kind === "out") specs.push({ kind, bytes: writableBytes, inodes: MAX_WRITABLE_ENTRIES + 1 });
    if (kind === "session") specs.push({ kind, bytes: MAX_SESSION_STORE_BYTES, inodes: MAX_SESSION_STORE_ENTRIES + 1, fill: directory.session });
    if (kind === "inputs") {
      // Read-only to the agent: what staging put in work/ (out/ empty, the mount point of its own volume), and room for the volume's own pages.
      const staged = await measureTree(directory.work);
      specs.push({
        kind,
        bytes: staged.usedBytes + staged.entries * LINK_PAGE_BYTES + INPUTS_SLACK_BYTES,
        inodes: staged.entries + 1 + INPUTS_SLACK_INODES,
        fill: directory.work,
      });
    }
    if (kind === "work") {
      // As allowMore shrinks the tmpfs of the root path: what staging put there, plus the bound.
      const staged = await measureTree(directory.work);
      specs.push({ kind, bytes: staged.usedBytes + writableBytes, inodes: staged.entries + 1 + MAX_WRITABLE_ENTRIES, fill: directory.work });
    }
  }
  return specs;
}

/** Reads the Run's volumes back into its directory, once its container is gone. */
export async function collectVolumes<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState, staged: StagedRun | undefined): Promise<void> {
  const { volumes } = state;
  if (volumes === undefined || staged === undefined) return;
  const { directory, manifest } = staged;
  // The agent's container is gone: what its volumes hold is final. A writable place is copied
  // back only when something reads it (the Harvest, a kept record), read all the same to tell
  // whether it is full; a session store always, for keepSession.
  // The session store first: it is the smaller, and keeping it matters past this Run.
  if (ctx.sessionStore !== undefined) state.collectedSession = await collectVolume(ctx, volumes, "session", directory.session, undefined);
  const wanted = ctx.harvestTo !== undefined || ctx.container.staging?.keepRuns === true;
  const writableWork = writablePlace(ctx) === "work";
  state.collectedOut = await collectVolume(
    ctx,
    volumes,
    writablePlace(ctx),
    wanted ? (writableWork ? directory.work : directory.out) : undefined,
    writableWork ? manifest : undefined,
  );
}

/** Reads one volume back (not under the Run's own stop: a Run that timed out still has its places read); a failure is an io_error refusal. */
async function collectVolume<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  volumes: RunVolumes,
  kind: RunVolumeKind,
  destination: string | undefined,
  manifest: Manifest | undefined,
): Promise<CollectedVolume> {
  const what = kind === "session" ? "the session store" : `${kind}/`;
  const reading = volumes.collect(kind, destination, patientSignal(OUT_COPY_TIMEOUT_MS, `the copy of the Run's ${what}`), manifest);
  // The copy stops itself at OUT_COPY_TIMEOUT_MS and cleans up after itself; this later bound is for an engine
  // that does not even let it stop, and leaves the clean-up its time so nothing writes after the Run moved on.
  // Neither is a user's deadline: both stretch with the load.
  return bounded(reading, OUT_COPY_TIMEOUT_MS + ENGINE_CLEANUP_TIMEOUT_MS, `copy back the Run's ${what}`).catch((error: unknown) => {
    const message = maskedMessage(ctx, error);
    ctx.logger.error({ runId: ctx.runId, err: message }, `what the agent left in ${what} could not be read from its volume`);
    return { full: false, refusal: { reason: "io_error" as const, entry: ".", message: `${what} could not be read back from its volume: ${message}` } };
  });
}

/** Removes the Run's volumes and their holder; what cannot be removed is the sweep's, and said in the log. */
export async function closeVolumes<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState): Promise<void> {
  await state.volumes?.close().catch((error: unknown) => {
    ctx.logger.error({ runId: ctx.runId, err: maskedMessage(ctx, error) }, "the Run's volumes could not be removed; sweep() will remove them");
  });
}
