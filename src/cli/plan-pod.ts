// `agentcage plan --kubernetes`: the Pod and NetworkPolicy the same arguments would make, as one
// JSON List a user pipes into `kubectl apply --dry-run=server -f -`; the credential only as a key
// of the Run's Secret, never its value. Not yet run against a live cluster here.
import { join } from "node:path";
import { manifestJson } from "../kube/index.js";
import { createAgentRunner } from "../runner/index.js";
import { AgentcageError } from "../errors/index.js";
import { EXIT } from "./exit-codes.js";
import type { CommandIo } from "./io.js";
import type { CheckedRun } from "./run-args.js";

export type PlanPodOptions = CheckedRun & {
  readonly image: string;
  readonly runtimeDir: string;
  readonly namespace?: string;
  readonly runtimeClassName?: string;
  readonly containerRuntime?: string;
};

export async function planPod(options: PlanPodOptions, io: CommandIo): Promise<number> {
  const runner = createAgentRunner({
    image: options.image,
    staging: { runtimeDir: join(options.runtimeDir, "staging"), ...(options.writable ? { writableWork: true } : {}) },
    ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
  });
  try {
    const manifest = await runner.manifestFor(options.request, options.prompt, {
      network: { policy: "none" },
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.runtimeClassName === undefined ? {} : { runtimeClassName: options.runtimeClassName }),
    });
    io.stdout.write(manifestJson(manifest));
    const secret = manifest.pod.spec?.containers[0]?.env?.find((e) => e.valueFrom !== undefined)?.valueFrom?.secretKeyRef?.name;
    if (secret !== undefined) io.stderr.write(`# the Pod reads its secret environment from the Secret ${secret}, which a Run makes; plan prints no value\n`);
    io.stderr.write("# the prompt goes to the Pod's stdin by attach; check these objects with: kubectl apply --dry-run=server -f -\n");
    io.stderr.write("# not yet run against a live cluster by agentcage's own tests\n");
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(`agentcage plan: ${error instanceof Error ? error.message : String(error)}\n`);
    // What a Pod cannot honour is the command line's (or the declaration's) to change.
    return error instanceof AgentcageError && error.code === "kubernetes_refused" ? EXIT.usage : EXIT.unavailable;
  }
}
