// `agentcage run` on this machine: one Run through the library's agent runner, shown live, with
// Ctrl-C as a cancel (the container goes; exit 130), the Harvest in --out, and the answer (or
// the patch, or the Outcome as JSON) on stdout.

import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createAgentRunner, type AgentOutcome, type AgentRunnerOptions, type NetworkPolicy } from "../agents/index.js";
import { startEgressGateway, type EgressGateway } from "../runtime/index.js";
import { UsageError } from "./options.js";
import { STAND_IN_CODEX_MODEL, STAND_IN_ENVIRONMENT, standInRunnerOptions, startStandInModel, type RunningStandIn } from "../testing/index.js";
import { exitCodeOf } from "./exit-codes.js";
import type { CheckedRun } from "./run-args.js";
import { forStdout } from "./answer.js";
import type { CommandIo } from "./io.js";
import { createRunView } from "./view.js";
import { workNotes } from "./work.js";

export type LocalRunOptions = CheckedRun & {
  readonly image: string;
  readonly runtimeDir: string;
  readonly networks: readonly string[];
  /** Default: none, or the declared --network. */
  readonly networkPolicy?: NetworkPolicy;
  readonly allowlist?: readonly string[];
  readonly standIn: boolean;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly containerRuntime?: string;
  /** How long the sessions this command keeps outlive their last use; default the library's (30 days). */
  readonly sessionRetentionDays?: number;
};

export async function runLocal(options: LocalRunOptions, io: CommandIo): Promise<number> {
  const view = createRunView(options.request.cli, io.stderr, io.live);
  const proxied = options.networkPolicy === "model" || options.networkPolicy === "allowlist";
  view.note(proxied ? "starting" : options.standIn ? "starting the stand-in model" : "starting");
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
  let standIn: RunningStandIn | undefined;
  let gateway: EgressGateway | undefined;
  // --writable with no --out: the Harvest goes to a scratch directory, and its patch to stdout.
  const scratch = options.writable && options.out === undefined ? await mkdtemp(join(tmpdir(), "agentcage-patch-")) : undefined;
  try {
    const logger = pino({ name: "agentcage", level: options.verbose ? "info" : "silent" }, pino.destination(2));
    const runnerOptions: AgentRunnerOptions = {
      image: options.image,
      staging: {
        runtimeDir: join(options.runtimeDir, "staging"),
        ...(options.writable ? { writableWork: true } : {}),
        ...(options.sessionRetentionDays === undefined ? {} : { sessionRetentionDays: options.sessionRetentionDays }),
      },
      sessions: true,
      logger,
      ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
      ...(options.networks.length === 0 ? {} : { networks: options.networks }),
      ...(options.networkPolicy === undefined ? {} : { networkPolicy: options.networkPolicy }),
      ...(options.allowlist === undefined ? {} : { allowlist: options.allowlist }),
    };
    await mkdir(runnerOptions.staging?.runtimeDir as string, { recursive: true, mode: 0o700 });
    if (proxied && !controller.signal.aborted) {
      // The proxy for this one Run: its own container, gone when the Run is (with --stand-in, the model is behind it).
      view.note(options.standIn ? "starting the egress proxy, with the stand-in model behind it" : "starting the egress proxy");
      gateway = await startEgressGateway({
        runtimeDir: runnerOptions.staging?.runtimeDir as string,
        standIn: options.standIn,
        ...(options.standIn ? { codexModel: STAND_IN_CODEX_MODEL } : {}),
        logger,
      });
    } else if (options.standIn && !controller.signal.aborted) {
      standIn = await startStandInModel("plain", { logger });
    }
    let runner;
    try {
      runner = createAgentRunner(
        gateway !== undefined
          ? { ...runnerOptions, egress: gateway, ...(options.standIn ? { environment: STAND_IN_ENVIRONMENT } : {}) }
          : standIn === undefined
            ? runnerOptions
            : { ...runnerOptions, ...standInRunnerOptions(standIn) },
      );
    } catch (error) {
      // The flags were checked together already (program.ts); what is left is the library's own refusal.
      throw new UsageError((error as Error).message);
    }
    const harvestTo = options.out ?? scratch;
    const outcome: AgentOutcome = await runner.run(options.request, options.prompt, {
      signal: controller.signal,
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
    await standIn?.stop();
    await gateway?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}
