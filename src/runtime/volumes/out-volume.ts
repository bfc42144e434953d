// A Run's bounded writable places where this process cannot mount (a non-root orchestrator): out/, a
// writable work/, a session's working copy, each an in-memory volume of the Run's own, all kept
// mounted by one holder container (no network, no capabilities, read-only, `sleep`) since a volume's
// content lives only while a container uses it. What staging put there goes in through the engine's
// archive first; after the agent it comes back under archive-copy's rules. Each volume and the holder
// carry the Run's labels and a name of its kind, so the sweep takes them if we die.

import {
  composeSpec,
  DEFAULT_OWNER,
  OWNER_LABEL,
  resolveAgentUser,
  RUN_LABEL,
  validateAgentContainer,
  type ValidatedContainer,
} from "../../container/index.js";
import { engineMessage, type Engine } from "../../engine/index.js";
import { numericUser, packTree, type Manifest } from "../../staging/index.js";
import { copyBackArchive, PLACE, type CollectedVolume, type RunVolumeKind } from "./volume-collect.js";
import { ENGINE_CLEANUP_TIMEOUT_MS, OUT_COPY_TIMEOUT_MS, VOLUME_SETUP_TIMEOUT_MS } from "../limits.js";
import { bounded, patientSignal } from "../stop.js";

/** The holder runs nothing but `sleep`: the least a container needs. */
const HOLDER_LIMITS = { memoryBytes: 16 * 1024 * 1024, pids: 8, tmpfsBytes: 1024 * 1024, stopGraceSeconds: 0 };
/** The label that says which of a Run's places a volume is. */
const VOLUME_KIND_LABEL = "agentcage.volume";

export type { CollectedVolume, RunVolumeKind } from "./volume-collect.js";
export const RUN_VOLUME_KINDS: readonly RunVolumeKind[] = ["out", "work", "session", "inputs"];

/** The volume of one of a Run's places (the sweep removes only volumes named so). */
export function runVolumeName(kind: RunVolumeKind, runId: string): string {
  return `agentcage-${kind}-${runId}`;
}

/** The volume of a Run's own out/. */
export function outVolumeName(runId: string): string {
  return runVolumeName("out", runId);
}

/** The container that keeps a Run's volumes mounted. */
export function volumeHolderName(runId: string): string {
  return `agentcage-${runId}-volumes`;
}

/** Where the holder mounts the volume of each kind. */
export function holderPath(kind: RunVolumeKind): string {
  return `/${kind}`;
}

export type RunVolumeSpec = {
  readonly kind: RunVolumeKind;
  /** Its size: for a filled one, what it is filled with plus what the agent may write. */
  readonly bytes: number;
  /** Inodes, its root among them. */
  readonly inodes: number;
  /** A staged directory whose content is put in the volume before the agent starts; default: it starts empty. */
  readonly fill?: string;
};

export type RunVolumesRequest = {
  readonly engine: Engine;
  readonly runId: string;
  /** The Run's declaration: its image and user serve the holder too. */
  readonly container: ValidatedContainer;
  /** Who owns the Run and until when (ownershipLabels). */
  readonly labels: Readonly<Record<string, string>>;
  readonly volumes: readonly RunVolumeSpec[];
  /** How long the holder may live at most (it ends by itself then): past the Run's own deadline. */
  readonly holderSeconds: number;
  /** Abandons putting the staged content in (the Run's stop). */
  readonly signal?: AbortSignal;
};

export type RunVolumes = {
  readonly names: Readonly<Partial<Record<RunVolumeKind, string>>>;
  /**
   * Reads what the volume of `kind` holds, copying it into `destination` when given: into the empty
   * out/, or in place of a work/ or session store (a fresh copy swapped in whole, nothing on a refusal).
   */
  readonly collect: (kind: RunVolumeKind, destination: string | undefined, signal?: AbortSignal, manifest?: Manifest) => Promise<CollectedVolume>;
  /** Removes the holder, then the volumes; what fails is left to the sweep and rethrown. */
  readonly close: () => Promise<void>;
};

/** Makes the volumes, starts their holder and fills them; on failure removes what it made and throws (a plain Error saying what failed). */
export async function openRunVolumes(request: RunVolumesRequest): Promise<RunVolumes> {
  const { engine, runId, container } = request;
  const holder = volumeHolderName(runId);
  const user = resolveAgentUser(container.user);
  const owner = numericUser(user);
  const names = Object.fromEntries(request.volumes.map((v) => [v.kind, runVolumeName(v.kind, runId)])) as Partial<Record<RunVolumeKind, string>>;
  const made: string[] = [];
  const close = async (): Promise<void> => {
    await bounded(engine.remove(holder), ENGINE_CLEANUP_TIMEOUT_MS, "remove the Run's volume holder");
    let failed: unknown;
    for (const name of made)
      await bounded(engine.removeVolume(name), ENGINE_CLEANUP_TIMEOUT_MS, `remove the volume ${name}`).catch((error: unknown) => (failed ??= error));
    if (failed !== undefined) throw failed;
  };
  let step = "made";
  let place = "";
  try {
    for (const volume of request.volumes) {
      place = PLACE[volume.kind];
      const name = runVolumeName(volume.kind, runId);
      // Named before it is asked for: a volume made whose answer was lost is still removed by close().
      made.push(name);
      await bounded(
        engine.createVolume({
          name,
          bytes: volume.bytes,
          inodes: volume.inodes,
          // Owned by the agent's uid; a user named (not numeric) gets a directory anyone may write.
          ...(owner === undefined ? { mode: "1777" } : { uid: owner.uid, gid: owner.gid, mode: "0755" }),
          labels: { ...request.labels, [RUN_LABEL]: runId, [OWNER_LABEL]: container.owner ?? DEFAULT_OWNER, [VOLUME_KIND_LABEL]: volume.kind },
        }),
        VOLUME_SETUP_TIMEOUT_MS,
        `create the volume ${name}`,
      );
    }
    place = request.volumes.length === 1 ? PLACE[request.volumes[0]?.kind ?? "out"] : "volumes";
    const declaration = validateAgentContainer({
      image: container.image,
      entrypoint: ["sleep"],
      // No networks declared: --network none.
      user,
      owner: container.owner ?? DEFAULT_OWNER,
      limits: HOLDER_LIMITS,
    });
    const volumes = request.volumes.map((v) => ({ volume: runVolumeName(v.kind, runId), agentPath: holderPath(v.kind) }));
    const spec = composeSpec(declaration, { runId, planArgs: [String(request.holderSeconds)], labels: request.labels, volumes });
    const id = await bounded(engine.create({ ...spec, name: holder }), VOLUME_SETUP_TIMEOUT_MS, "create the Run's volume holder");
    await bounded(engine.start(id), VOLUME_SETUP_TIMEOUT_MS, "start the Run's volume holder");
    step = "filled";
    for (const volume of request.volumes) {
      if (volume.fill === undefined) continue;
      place = PLACE[volume.kind];
      const packed = packTree(volume.fill, owner);
      // Whichever fails first is the failure; the other is not left to reject unheard.
      packed.done.catch(() => undefined);
      const failed = new AbortController();
      const signal = AbortSignal.any([
        failed.signal,
        patientSignal(OUT_COPY_TIMEOUT_MS, `the copy of the Run's ${place} into its volume`),
        ...(request.signal === undefined ? [] : [request.signal]),
      ]);
      try {
        await Promise.all([
          bounded(engine.putArchive(holder, holderPath(volume.kind), packed.archive, signal), OUT_COPY_TIMEOUT_MS, `put the Run's ${place} in its volume`),
          packed.done,
        ]);
      } catch (error) {
        // A walk that failed leaves the engine a short archive: the upload is abandoned, not finished.
        failed.abort();
        packed.archive.destroy();
        throw error;
      }
    }
  } catch (error) {
    await close().catch(() => undefined);
    const what = place === "volumes" ? "the Run's volumes" : `the Run's ${place} volume`;
    throw new Error(`${what} could not be ${step}: ${engineMessage(error)}`, { cause: error });
  }
  const specOf = (kind: RunVolumeKind): RunVolumeSpec => {
    const spec = request.volumes.find((v) => v.kind === kind);
    if (spec === undefined) throw new Error(`the Run has no ${kind} volume`);
    return spec;
  };
  return {
    names,
    collect: async (kind, destination, signal, manifest) => {
      const spec = specOf(kind);
      const archive = await engine.getArchive(holder, holderPath(kind), signal);
      return copyBackArchive(archive, kind, spec, destination, manifest);
    },
    close,
  };
}
