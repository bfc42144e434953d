// `agentcage run` on this machine: one Run through the library's agent runner, shown live, with
// Ctrl-C as a cancel (the container goes; exit 130), the Harvest in --out, and the answer (or
// the patch, or the Outcome as JSON) on stdout. What the Run needs started first (the stand-in, the
// egress proxy) is waited for as long as its container runs, said on the view; when it cannot start
// nothing could run: exit 3 (unavailable), with its sentence.

import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import {
  AgentRunnerError,
  assembleRunners,
  type AgentOutcome,
  type AssemblyStep,
  type AssemblyWaiting,
  type NetworkPolicy,
  type RunnerAssembly,
} from "../runner/index.js";
import { refusalsOf, type RunFiles } from "../runtime/index.js";
import { kubernetesBackend } from "./kube-config.js";
import { UsageError } from "./options.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import type { CheckedRun } from "./run-args.js";
import { forStdout } from "./answer.js";
import type { CommandIo } from "./io.js";
import { createRunView, type RunView } from "./view.js";
import { workNotes } from "./work.js";
import type { TraceHeaders } from "../trace/index.js";

export type LocalRunOptions = CheckedRun & {
  readonly image: string;
  /** The caller's trace context (TRACEPARENT, TRACESTATE in the environment): the Run's span is its child. */
  readonly trace: TraceHeaders;
  readonly runtimeDir: string;
  readonly networks: readonly string[];
  /** Default: none, or the declared --network. */
  readonly networkPolicy?: NetworkPolicy;
  readonly allowlist?: readonly string[];
  readonly standIn: boolean;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly containerRuntime?: string;
  /** How the Run's files reach the engine (--run-files); default the library's ("disk"). */
  readonly runFiles?: RunFiles;
  /** How long the sessions this command keeps outlive their last use; default the library's (30 days). */
  readonly sessionRetentionDays?: number;
  /** --kubernetes: the Run is a Pod in this namespace of the kubeconfig's cluster; default: Docker. */
  readonly kubernetesNamespace?: string;
};

/** What the view says while a step starts: which, and once it waits, whether its container runs yet. */
function startingWords(step: AssemblyStep, waiting?: AssemblyWaiting): string {
  const what =
    step === "stand-in model" ? "the stand-in model" : step === "egress proxy" ? "the egress proxy" : "the egress proxy, with the stand-in model behind it";
  if (waiting === undefined) return `starting ${what}`;
  return `starting ${what}: ${waiting.running ? "its container runs; waiting for it to listen" : "waiting for the engine to start its container"}`;
}

/**
 * A Run that could not begin because what it needs did not start: the library's own refusal is a
 * usage error; a Ctrl-C meanwhile is a cancel (130); else nothing could run: unavailable (3).
 */
function startFailed(error: unknown, signal: AbortSignal, view: RunView): number {
  const message = error instanceof Error ? error.message : String(error);
  // The flags were checked together already (program.ts); what is left is the library's own refusal.
  if (error instanceof AgentRunnerError) throw new UsageError(message);
  // What the start made is gone already: it removes it before it rejects.
  const cancelled = signal.aborted;
  view.end({ ok: false, reason: cancelled ? "cancelled" : "unavailable", error: message }, []);
  return cancelled ? EXIT.cancelled : EXIT.unavailable;
}

export async function runLocal(options: LocalRunOptions, io: CommandIo): Promise<number> {
  const view = createRunView(options.request.cli, io.stderr, io.live);
  const proxied = options.networkPolicy === "model" || options.networkPolicy === "allowlist";
  view.note(!proxied && options.standIn ? "starting the stand-in model" : "starting");
  await mkdir(options.runtimeDir, { recursive: true, mode: 0o700 });
  const controller = new AbortController();
  let interrupts = 0;
  const stopListening = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts > 1) {
      io.stderr.write("\nagentcage: left at once; whatever is left of the Run goes at the next `agentcage sweep`\n");
      io.exit(130);
    }
    view.note("cancelling (Ctrl-C again to leave at once)");
    controller.abort(new Error("cancelled with Ctrl-C"));
  });
  let assembly: RunnerAssembly | undefined;
  // --writable with no --out: the Harvest goes to a scratch directory, and its patch to stdout.
  const scratch = options.writable && options.out === undefined ? await mkdtemp(join(tmpdir(), "agentcage-patch-")) : undefined;
  try {
    const logger = pino({ name: "agentcage", level: options.verbose ? "info" : "silent" }, pino.destination(2));
    const staging = join(options.runtimeDir, "staging");
    await mkdir(staging, { recursive: true, mode: 0o700 });
    // The proxy or the stand-in for this one Run: its own container, gone when the Run is.
    // client-node and Kubernetes' schemas load only for a Run that goes there.
    const backend = options.kubernetesNamespace === undefined ? {} : { kubernetes: await kubernetesBackend(options.kubernetesNamespace) };
    // A session store is kept where the backend can keep one (a Pod cannot yet): asked of it, in its words.
    const sessions = refusalsOf({ kubernetes: options.kubernetesNamespace }).refusal({ needs: "session", asked: "sessions" }) === undefined;
    try {
      assembly = await assembleRunners({
        runner: {
          image: options.image,
          staging: {
            runtimeDir: staging,
            ...(options.writable ? { writableWork: true } : {}),
            ...(options.sessionRetentionDays === undefined ? {} : { sessionRetentionDays: options.sessionRetentionDays }),
          },
          sessions,
          ...backend,
          logger,
          ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
          ...(options.runFiles === undefined ? {} : { runFiles: options.runFiles }),
        },
        ...(options.networks.length === 0 ? {} : { networks: options.networks }),
        ...(options.networkPolicy === undefined ? {} : { networkPolicy: options.networkPolicy }),
        ...(options.allowlist === undefined ? {} : { allowlist: options.allowlist }),
        standIn: options.standIn,
        signal: controller.signal,
        // The stand-in alone was announced above, with the Run's start.
        onStep: (step) => {
          if (step !== "stand-in model") view.note(startingWords(step));
        },
        onWaiting: (step, waiting) => view.note(startingWords(step, waiting)),
        logger,
      });
    } catch (error) {
      return startFailed(error, controller.signal, view);
    }
    let runner;
    try {
      runner = assembly.runner();
    } catch (error) {
      // The flags were checked together already (program.ts); what is left is the library's own refusal.
      throw new UsageError((error as Error).message);
    }
    const harvestTo = options.out ?? scratch;
    const outcome: AgentOutcome = await runner.run(options.request, options.prompt, {
      signal: controller.signal,
      ...(options.trace.traceparent === undefined ? {} : { traceContext: options.trace }),
      onEvent: (event) => view.event(event),
      ...(options.inputs === undefined ? {} : { inputs: { directory: options.inputs, ...(options.exclude.length === 0 ? {} : { exclude: options.exclude }) } }),
      ...(harvestTo === undefined ? {} : { harvestTo, replaceHarvestTo: options.replace }),
    });
    const patch = scratch === undefined ? undefined : await readFile(join(scratch, "changes.patch"), "utf8").catch(() => undefined);
    view.end(outcome, workNotes(outcome.harvest, options.out, patch !== undefined));
    if (options.json) io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    else if (patch !== undefined) io.stdout.write(forStdout(patch, io.stdout));
    else if (outcome.result?.text !== undefined) io.stdout.write(`${forStdout(outcome.result.text, io.stdout)}\n`);
    return exitCodeOf(outcome);
  } finally {
    stopListening();
    await assembly?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}
