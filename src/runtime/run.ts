// One Run once it has its slot, as the pipeline its steps are named after:
// stage -> plan -> compose -> container run -> end reason -> record -> harvest.
// Every step's failure becomes the Outcome's reason; the Run's deadline and cancel cover them all;
// nothing of the Run is left behind but a record kept on purpose.

import type { Logger } from "pino";
import { renderCommand, type ValidatedContainer } from "../container/index.js";
import type { Engine } from "../engine/index.js";
import type { EndReason, Outcome, ReaderVerdict, RunPlanFunction, RunPrompt } from "../plan/index.js";
import type { Masker } from "../redact/index.js";
import {
  DEFAULT_WRITABLE_BYTES,
  measureTree,
  releaseWritable,
  stagingLimits,
  writableFull,
  type Manifest,
  type RunDirectory,
  type RunInputs,
  type SecretFile,
} from "../staging/index.js";

const { MAX_SESSION_STORE_BYTES, MAX_SESSION_STORE_ENTRIES, MAX_WRITABLE_ENTRIES } = stagingLimits;
import { composeRun, containerDeadlineSeconds } from "./compose.js";
import { runContainer } from "./container-run.js";
import { earlyOutcome, outcomeOf } from "./end-reason.js";
import { harvestRun } from "./harvest.js";
import { ENGINE_ANSWER_MARGIN_MS, ENGINE_CLEANUP_TIMEOUT_MS, OUT_COPY_TIMEOUT_MS } from "./limits.js";
import { openRunVolumes, runVolumeName, type CollectedVolume, type RunVolumeKind, type RunVolumes, type RunVolumeSpec } from "./out-volume.js";
import { planRun } from "./plan.js";
import { finishRecord, openRecord, removeSecretFiles, type RecordWriter } from "./record.js";
import { stageRun } from "./stage.js";
import { checkSessionToResume, keepSession } from "./session.js";
import type { SessionStoreOptions } from "./run-options.js";
import { checkHarvestDestination } from "./run-request.js";
import { bounded, createRunStop, type RunStop } from "./stop.js";
import { ownershipLabels, type Ownership } from "./ownership.js";
import { closeRunNetwork, openRunNetwork, runNetworkName, type RunNetwork } from "./run-network.js";

export type RunContext<R extends ReaderVerdict, Q> = {
  readonly runId: string;
  /** Who may end this Run and until when: on its container's labels and in its run.json. */
  readonly ownership: Ownership;
  readonly prompt: RunPrompt<Q>;
  readonly container: ValidatedContainer;
  readonly planFunction: RunPlanFunction<R, Q>;
  readonly engine: Engine;
  readonly logger: Logger;
  /** This Run's own masker: the declaration's secrets and the Run's. */
  readonly masker: Masker;
  /** When the Run got its slot (performance.now()). */
  readonly startedAt: number;
  readonly timeoutSeconds: number;
  readonly graceMs: number;
  readonly signal?: AbortSignal;
  readonly inputs?: RunInputs;
  readonly harvestTo?: string;
  readonly replaceHarvestTo: boolean;
  readonly sessionStore?: SessionStoreOptions;
  readonly runEnv: Readonly<Record<string, string>>;
  readonly secretFiles: readonly SecretFile[];
  readonly stallSeconds?: number;
  readonly onStallWarning?: (info: { readonly silentMs: number }) => void;
  /** The Run's own network, made before its container and removed after it; default: the declared networks. */
  readonly network?: RunNetwork;
  /** The owner label its network carries, as its container does. */
  readonly owner: string;
  /**
   * How what the agent writes is bounded: "mount", a tmpfs this process mounts over out/ (root on
   * the engine's host); "volume", out/ (or the writable work/) and the session store's working copy
   * as in-memory volumes of the Run's own (out-volume.ts).
   */
  readonly writeBound: WriteBound;
};

export type WriteBound = "mount" | "volume";

export async function performRun<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): Promise<Outcome<R>> {
  const { runId, container, logger, masker } = ctx;
  /** What the volume of the Run's writable place (out/, or all of work/) held, once read (write bound "volume" only). */
  let collectedOut: CollectedVolume | undefined;
  /** What its session store's volume held, once read. */
  let collectedSession: CollectedVolume | undefined;
  const stop = createRunStop({ timeoutMs: ctx.timeoutSeconds * 1000, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) });
  const early = (reason: EndReason, error: string) => earlyOutcome<R>(runId, ctx.startedAt, masker, reason, error);
  try {
    if (container.staging === undefined) return await runUnstaged();
    if (ctx.harvestTo !== undefined) {
      // Before anything is staged: a destination that cannot take the Harvest costs no Run.
      const refusal = await checkHarvestDestination(ctx.harvestTo, ctx.replaceHarvestTo, {
        runtimeDir: container.staging.runtimeDir,
        ...(ctx.inputs?.directory === undefined ? {} : { inputsDirectory: ctx.inputs.directory }),
      });
      if (refusal !== undefined) return early("invalid_request", refusal);
    }
    if (ctx.sessionStore !== undefined) {
      const refusal = await checkSessionToResume(container.staging.runtimeDir, ctx.sessionStore);
      if (refusal !== undefined) return early("invalid_request", refusal);
    }
    const staged = await stageRun({
      runId,
      container,
      inputs: ctx.inputs ?? {},
      maskedPrompt: masker.mask(ctx.prompt.text),
      secretFiles: ctx.secretFiles,
      ownership: ctx.ownership,
      ...(ctx.sessionStore === undefined ? {} : { sessionStore: ctx.sessionStore }),
      stop,
      boundByMount: ctx.writeBound === "mount",
    });
    if (!staged.ok) return early(staged.reason, staged.error);
    return await runStaged(staged.directory, staged.manifest);
  } finally {
    stop.dispose();
  }

  async function runUnstaged(): Promise<Outcome<R>> {
    return planComposeAndRun(undefined, stop);
  }

  /** From here on, whatever happens, a staged Run's directory gets its record (or goes). */
  async function runStaged(directory: RunDirectory, manifest: Manifest | undefined): Promise<Outcome<R>> {
    let outcome = await planComposeAndRun(directory, stop, manifest);
    outcome = await checkWriteBound(outcome, directory);
    outcome = refuseOutCopy(outcome);
    const recordContext = { runId, masker, logger };
    await removeSecretFiles(directory, recordContext);
    if (ctx.sessionStore !== undefined && outcome.exit !== undefined) {
      const refused = collectedSession?.refusal;
      outcome =
        refused === undefined
          ? await keepSession(outcome, directory, container.staging?.runtimeDir as string, ctx.sessionStore, masker)
          : { ...outcome, session: { kept: false, error: masker.mask(`the session store was not kept: ${refused.message}`) } };
    }
    // A work/ copied back from its volume is a new tree: the manifest carried over to it says what is as staged.
    const since = collectedOut?.manifest ?? manifest;
    if (ctx.harvestTo !== undefined) {
      outcome = await harvestRun(outcome, directory, ctx.harvestTo, {
        ...(since === undefined ? {} : { changesSince: { manifest: since, originals: ctx.inputs ?? {} } }),
        replace: ctx.replaceHarvestTo,
        stop,
        masker,
      });
    }
    const keep = container.staging?.keepRuns ?? false;
    if (keep) outcome = { ...outcome, runDirectory: directory.root };
    // The bound on what the agent wrote ends with the Run; a kept record keeps what it wrote, on disk.
    await releaseWritable(directory.root, writablePath(directory), keep).catch((error: unknown) => {
      logger.error({ runId, err: masker.mask(error instanceof Error ? error.message : String(error)) }, "the Run's writable tmpfs could not be released");
    });
    await finishRecord(directory, outcome, keep, recordContext);
    return outcome;
  }

  function writablePath(directory: RunDirectory): string {
    return container.staging?.writableWork === true ? directory.work : directory.out;
  }

  /** An agent that filled its bound had writes fail: whatever its reader said, the Run ends as write_limit. */
  async function checkWriteBound(outcome: Outcome<R>, directory: RunDirectory): Promise<Outcome<R>> {
    if (outcome.exit === undefined) return outcome;
    const full = ctx.writeBound === "mount" ? await writableFull(writablePath(directory)).catch(() => false) : collectedOut?.full === true;
    if (!full) return outcome;
    const limit = container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES;
    const error = `the agent filled what it may write, ${limit} bytes (staging.writableBytes) or ${MAX_WRITABLE_ENTRIES} files, and its writes past it failed; raise staging.writableBytes or have it write less`;
    return { ...outcome, ok: false, reason: "write_limit", error: outcome.error === undefined ? error : `${error}; ${outcome.error}` };
  }

  /**
   * What the agent left in its out/ (or work/) volume could not be copied back (a link, a device): a Run that
   * would be harvested is refused as the Harvest refuses; otherwise it is said in the log.
   */
  function refuseOutCopy(outcome: Outcome<R>): Outcome<R> {
    const refusal = collectedOut?.refusal;
    if (refusal === undefined) return outcome;
    if (ctx.harvestTo === undefined || outcome.reason !== "completed") {
      logger.warn({ runId, refusal: masker.maskDeep(refusal) }, "what the agent left in its writable volume was not copied back");
      return outcome;
    }
    return { ...outcome, ok: false, reason: "harvest_refused", error: masker.mask(refusal.message), harvest: masker.maskDeep({ ok: false, refusal }) };
  }

  /** Each volume's size: out/ writableBytes; a writable work/ what staging put there plus writableBytes; a session store its bound. */
  async function volumeSpecs(kinds: readonly RunVolumeKind[], directory: RunDirectory): Promise<RunVolumeSpec[]> {
    const writableBytes = container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES;
    const specs: RunVolumeSpec[] = [];
    for (const kind of kinds) {
      if (kind === "out") specs.push({ kind, bytes: writableBytes, inodes: MAX_WRITABLE_ENTRIES + 1 });
      if (kind === "session") specs.push({ kind, bytes: MAX_SESSION_STORE_BYTES, inodes: MAX_SESSION_STORE_ENTRIES + 1, fill: directory.session });
      if (kind === "work") {
        // As allowMore shrinks the tmpfs of the root path: what staging put there, plus the bound.
        const staged = await measureTree(directory.work);
        specs.push({ kind, bytes: staged.usedBytes + writableBytes, inodes: staged.entries + 1 + MAX_WRITABLE_ENTRIES, fill: directory.work });
      }
    }
    return specs;
  }

  /** Reads one volume back (not under the Run's own stop: a Run that timed out still has its places read); a failure is an io_error refusal. */
  async function collectVolume(
    volumes: RunVolumes,
    kind: RunVolumeKind,
    destination: string | undefined,
    manifest: Manifest | undefined,
  ): Promise<CollectedVolume> {
    const what = kind === "session" ? "the session store" : `${kind}/`;
    const reading = volumes.collect(kind, destination, AbortSignal.timeout(OUT_COPY_TIMEOUT_MS), manifest);
    // The copy stops itself at OUT_COPY_TIMEOUT_MS and cleans up after itself; this later bound is for an engine
    // that does not even let it stop, and leaves the clean-up its time so nothing writes after the Run moved on.
    return bounded(reading, OUT_COPY_TIMEOUT_MS + ENGINE_CLEANUP_TIMEOUT_MS, `copy back the Run's ${what}`).catch((error: unknown) => {
      const message = masker.mask(error instanceof Error ? error.message : String(error));
      logger.error({ runId, err: message }, `what the agent left in ${what} could not be read from its volume`);
      return { full: false, refusal: { reason: "io_error" as const, entry: ".", message: `${what} could not be read back from its volume: ${message}` } };
    });
  }

  async function planComposeAndRun(directory: RunDirectory | undefined, runStop: RunStop, manifest?: Manifest): Promise<Outcome<R>> {
    // After staging: a plan may rely on its workspace being there.
    const planned = planRun(ctx.planFunction, ctx.prompt, { runId, mask: masker.maskDeep });
    if (!planned.ok) return early(planned.reason, planned.error);
    let record: RecordWriter | undefined;
    let networkOpen = false;
    // Bounded by volumes of the Run's own: its writable place (out/, or all of work/) and its session store.
    const writableWork = container.staging?.writableWork === true;
    const kinds: RunVolumeKind[] =
      directory === undefined || ctx.writeBound !== "volume"
        ? []
        : [writableWork ? "work" : "out", ...(ctx.sessionStore === undefined ? [] : ["session" as const])];
    const volumeNames = Object.fromEntries(kinds.map((kind) => [kind, runVolumeName(kind, runId)]));
    let volumes: RunVolumes | undefined;
    if (directory !== undefined) record = await openRecord(directory, planned.plan.request, { runId, masker, logger });
    try {
      let spec;
      try {
        spec = composeRun(container, {
          runId,
          planArgs: planned.plan.args,
          runEnv: ctx.runEnv,
          secretFiles: ctx.secretFiles,
          labels: ownershipLabels(ctx.ownership),
          // What is left of the Run's timeout (staging took some): the container's own timer ends it then.
          deadlineSeconds: containerDeadlineSeconds(ctx.startedAt + ctx.timeoutSeconds * 1000 - performance.now()),
          ...(ctx.sessionStore === undefined ? {} : { sessionAgentPath: ctx.sessionStore.agentPath }),
          ...(ctx.network === undefined ? {} : { networks: [runNetworkName(runId)] }),
          ...(kinds.length === 0 ? {} : { volumes: volumeNames }),
        });
      } catch (error) {
        // Only what this Run added can fail here (a secret file's path clashing with a mount).
        return early("invalid_request", error instanceof Error ? error.message : String(error));
      }
      if (ctx.network !== undefined) {
        const refused = await openRunNetwork(ctx.engine, runId, ctx.network, ownershipLabels(ctx.ownership), ctx.owner);
        if (refused !== undefined) return early("unavailable", refused);
        networkOpen = true;
      }
      if (kinds.length > 0 && directory !== undefined) {
        try {
          volumes = await openRunVolumes({
            engine: ctx.engine,
            runId,
            container,
            labels: ownershipLabels(ctx.ownership),
            volumes: await volumeSpecs(kinds, directory),
            // It ends by itself a while after the agent's own timer would have, and after each volume had its
            // whole copy-back time (they are read one after another once the agent is gone): the sweep takes what is left.
            holderSeconds:
              containerDeadlineSeconds(ctx.startedAt + ctx.timeoutSeconds * 1000 - performance.now()) +
              Math.ceil((ctx.graceMs + ENGINE_ANSWER_MARGIN_MS + kinds.length * OUT_COPY_TIMEOUT_MS) / 1000),
            signal: runStop.signal,
          });
        } catch (error) {
          const interruption = runStop.interruption();
          if (interruption !== undefined) return early(interruption.why, `${interruption.detail} while its volumes were made`);
          return early("unavailable", masker.mask(error instanceof Error ? error.message : String(error)));
        }
      }
      const command = renderCommand(spec, planned.stdin, masker);
      logger.info({ runId, command: [command.command, ...command.redactedArgs] }, "run started");
      const facts = await runContainer({
        runId,
        spec,
        plan: planned.plan,
        stdin: planned.stdin,
        engine: ctx.engine,
        stop: runStop,
        graceMs: ctx.graceMs,
        abandonAfterMs: ctx.timeoutSeconds * 1000 + ctx.graceMs + ENGINE_ANSWER_MARGIN_MS,
        logger,
        masker,
        ...(record === undefined ? {} : { onStdout: record.onStdout, onStderr: record.onStderr }),
        ...(ctx.stallSeconds === undefined ? {} : { stallSeconds: ctx.stallSeconds }),
        ...(ctx.onStallWarning === undefined ? {} : { onStallWarning: ctx.onStallWarning }),
        ...(ctx.network?.onAgentGone === undefined ? {} : { onExited: ctx.network.onAgentGone }),
        ...(ctx.network?.liveness === undefined ? {} : { liveness: ctx.network.liveness }),
      });
      if (volumes !== undefined && directory !== undefined) {
        // The agent's container is gone: what its volumes hold is final. A writable place is copied
        // back only when something reads it (the Harvest, a kept record), read all the same to tell
        // whether it is full; a session store always, for keepSession.
        // The session store first: it is the smaller, and keeping it matters past this Run.
        if (ctx.sessionStore !== undefined) collectedSession = await collectVolume(volumes, "session", directory.session, undefined);
        const wanted = ctx.harvestTo !== undefined || container.staging?.keepRuns === true;
        const place = writableWork ? "work" : "out";
        collectedOut = await collectVolume(
          volumes,
          place,
          wanted ? (writableWork ? directory.work : directory.out) : undefined,
          writableWork ? manifest : undefined,
        );
      }
      const outcome = outcomeOf(runId, facts, masker, Math.round(performance.now() - ctx.startedAt));
      if (outcome.ok && outcome.exit !== undefined && outcome.exit.code !== 0) {
        logger.warn({ runId, exit: outcome.exit }, "the reader said ok but the agent exited non-zero");
      }
      return outcome;
    } finally {
      await volumes?.close().catch((error: unknown) => {
        logger.error(
          { runId, err: masker.mask(error instanceof Error ? error.message : String(error)) },
          "the Run's volumes could not be removed; sweep() will remove them",
        );
      });
      if (networkOpen) {
        await closeRunNetwork(ctx.engine, runId).catch((error: unknown) => {
          logger.error(
            { runId, err: masker.mask(error instanceof Error ? error.message : String(error)) },
            "the Run's network could not be removed; sweep() will remove it",
          );
        });
      }
      await record?.closeStreams();
    }
  }
}
