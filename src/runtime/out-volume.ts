// A Run's bounded out/ where this process cannot mount (a non-root orchestrator): an in-memory
// volume of the Run's own, mounted where out/ is, kept mounted by a holder container (no network,
// no capabilities, read-only, `sleep`) since its content lives only while a container uses it; after
// the agent, copied back through the engine's archive under archive-copy's rules. Full when what it
// held fills it. Volume and holder carry the Run's labels, so the sweep takes them if we die.

import { composeSpec, DEFAULT_OWNER, OWNER_LABEL, resolveAgentUser, RUN_LABEL, validateAgentContainer, type ValidatedContainer } from "../container/index.js";
import { engineMessage, type Engine } from "../engine/index.js";
import type { HarvestRefusal } from "../plan/index.js";
import { copyFromArchive, numericUser, stagingLimits } from "../staging/index.js";
import { mkdir, rm } from "node:fs/promises";
import { ENGINE_CLEANUP_TIMEOUT_MS } from "./limits.js";
import { bounded } from "./stop.js";

const { FULL_BELOW_BYTES, FULL_BELOW_INODES, MAX_INPUT_DEPTH, MAX_WRITABLE_ENTRIES } = stagingLimits;
/** Where the holder mounts the volume. */
const HOLDER_TARGET = "/out";
/** The holder runs nothing but `sleep`: the least a container needs. */
const HOLDER_LIMITS = { memoryBytes: 16 * 1024 * 1024, pids: 8, tmpfsBytes: 1024 * 1024, stopGraceSeconds: 0 };

/** The volume of a Run's own out/. */
export function outVolumeName(runId: string): string {
  return `agentcage-out-${runId}`;
}

/** The container that keeps it mounted. */
export function outHolderName(runId: string): string {
  return `agentcage-${runId}-out`;
}

export type OutVolumeRequest = {
  readonly engine: Engine;
  readonly runId: string;
  /** The Run's declaration: its image and user serve the holder too. */
  readonly container: ValidatedContainer;
  /** Who owns the Run and until when (ownershipLabels). */
  readonly labels: Readonly<Record<string, string>>;
  readonly bytes: number;
  /** How long the holder may live at most (it ends by itself then): past the Run's own deadline. */
  readonly holderSeconds: number;
};

export type CollectedOut = {
  /** The agent filled what it may write (its writes past it failed). */
  readonly full: boolean;
  /** An entry copy-back refused; out/ on disk is then left empty. */
  readonly refusal?: HarvestRefusal;
};

export type OutVolume = {
  readonly name: string;
  /** Reads what the volume holds, copying it into `destination` (the Run's out/) when given. */
  readonly collect: (destination: string | undefined, signal?: AbortSignal) => Promise<CollectedOut>;
  /** Removes the holder, then the volume; what fails is left to the sweep and rethrown. */
  readonly close: () => Promise<void>;
};

/** Makes the volume and starts its holder; on failure removes what it made and throws (a plain Error saying what failed). */
export async function openOutVolume(request: OutVolumeRequest): Promise<OutVolume> {
  const { engine, runId, container } = request;
  const name = outVolumeName(runId);
  const holder = outHolderName(runId);
  const user = resolveAgentUser(container.user);
  const owner = numericUser(user);
  const close = async (): Promise<void> => {
    await bounded(engine.remove(holder), ENGINE_CLEANUP_TIMEOUT_MS, "remove the out/ holder");
    await bounded(engine.removeVolume(name), ENGINE_CLEANUP_TIMEOUT_MS, "remove the out/ volume");
  };
  try {
    await engine.createVolume({
      name,
      bytes: request.bytes,
      // Its root is one inode; the agent may make MAX_WRITABLE_ENTRIES below it.
      inodes: MAX_WRITABLE_ENTRIES + 1,
      // Owned by the agent's uid; a user named (not numeric) gets a directory anyone may write.
      ...(owner === undefined ? { mode: "1777" } : { uid: owner.uid, gid: owner.gid, mode: "0755" }),
      labels: { ...request.labels, [RUN_LABEL]: runId, [OWNER_LABEL]: container.owner ?? DEFAULT_OWNER },
    });
    const declaration = validateAgentContainer({
      image: container.image,
      entrypoint: ["sleep"],
      // No networks declared: --network none.
      user,
      owner: container.owner ?? DEFAULT_OWNER,
      limits: HOLDER_LIMITS,
    });
    const spec = composeSpec(declaration, { runId, planArgs: [String(request.holderSeconds)], labels: request.labels, volumes: [{ volume: name, agentPath: HOLDER_TARGET }] });
    const id = await engine.create({ ...spec, name: holder });
    await engine.start(id);
  } catch (error) {
    await close().catch(() => undefined);
    throw new Error(`the Run's out/ volume could not be made: ${engineMessage(error)}`, { cause: error });
  }
  return {
    name,
    collect: async (destination, signal) => {
      const archive = await engine.getArchive(holder, HOLDER_TARGET, signal);
      const copy = await copyFromArchive(archive, destination, { maxBytes: request.bytes, maxEntries: MAX_WRITABLE_ENTRIES, maxDepth: MAX_INPUT_DEPTH });
      if (copy.refusal !== undefined && destination !== undefined) {
        // Nothing half-copied: out/ is left as the agent found it, empty.
        await rm(destination, { recursive: true, force: true });
        await mkdir(destination, { mode: 0o755 });
      }
      // A refused copy stopped early: what was counted is a lower bound, so only a full count says full.
      const full = copy.usedBytes + FULL_BELOW_BYTES > request.bytes || copy.entries + 1 + FULL_BELOW_INODES > MAX_WRITABLE_ENTRIES + 1;
      return { full, ...(copy.refusal === undefined ? {} : { refusal: copy.refusal }) };
    },
    close,
  };
}
