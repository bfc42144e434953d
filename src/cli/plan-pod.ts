// `agentcage plan --kubernetes`: the Pod and NetworkPolicy the same arguments would make, as one
// JSON List a user pipes into `kubectl apply --dry-run=server -f -`; the credential only as a key
// of the Run's Secret, never its value. Under `model` the egress proxy's address and name are known
// only once a Run's proxy is made: they are marked placeholders. Not yet run against a live cluster here.
import { join } from "node:path";
import { DEFAULT_EGRESS_PORT } from "../egress/index.js";
import { egressPeer, manifestJson } from "../kube/index.js";
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
  /** `model`: the Pod reaches the Run's egress proxy, and its agent holds a per-Run token; default none. */
  readonly networkPolicy?: "none" | "model";
};

/** The egress proxy's Service address (its ClusterIP), which the cluster gives when a Run's proxy is made. */
const PROXY_ADDRESS = "EGRESS_PROXY_CLUSTER_IP";
/** The proxy's Pod name (the instance label a Run's NetworkPolicy selects it by), made with it. */
const PROXY_NAME = "EGRESS-PROXY-NAME";
/** What the agent's key variable holds under `model`: a per-Run token, in the Run's Secret; never printed. */
const TOKEN = "per-run-token-of-the-egress-proxy";

/** Under `model`, the runner's settings a Run behind the in-cluster proxy has: the CLIs speak to it, with a token for a key. */
function behindProxy(): { anthropicBaseUrl: string; codexProvider: { baseUrl: string; envKey: string }; environment: Record<string, string> } {
  const proxy = `http://${PROXY_ADDRESS}:${DEFAULT_EGRESS_PORT}`;
  return {
    anthropicBaseUrl: proxy,
    codexProvider: { baseUrl: `${proxy}/v1`, envKey: "OPENAI_API_KEY" },
    environment: { ANTHROPIC_API_KEY: TOKEN, OPENAI_API_KEY: TOKEN },
  };
}

export async function planPod(options: PlanPodOptions, io: CommandIo): Promise<number> {
  const proxied = options.networkPolicy === "model";
  const runner = createAgentRunner({
    image: options.image,
    staging: { runtimeDir: join(options.runtimeDir, "staging"), ...(options.writable ? { writableWork: true } : {}) },
    ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
    ...(proxied ? behindProxy() : {}),
  });
  try {
    const manifest = await runner.manifestFor(options.request, options.prompt, {
      network: proxied ? { policy: "model", proxy: egressPeer({ name: PROXY_NAME, port: DEFAULT_EGRESS_PORT }) } : { policy: "none" },
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.runtimeClassName === undefined ? {} : { runtimeClassName: options.runtimeClassName }),
    });
    io.stdout.write(manifestJson(manifest));
    const secret = manifest.pod.spec?.containers[0]?.env?.find((e) => e.valueFrom !== undefined)?.valueFrom?.secretKeyRef?.name;
    if (secret !== undefined)
      io.stderr.write(
        `# the Pod reads its secret environment from the Secret ${secret}, which a Run makes${proxied ? " (its key variable holds the Run's token for the egress proxy, never the key)" : ""}; plan prints no value\n`,
      );
    if (proxied) {
      io.stderr.write(
        `# ${PROXY_ADDRESS} stands for the egress proxy's Service address (its ClusterIP), and ${PROXY_NAME} for its Pod's name: a Run makes its proxy first, and the cluster gives the address then\n`,
      );
    }
    io.stderr.write("# the prompt goes to the Pod's stdin by attach; check these objects with: kubectl apply --dry-run=server -f -\n");
    io.stderr.write("# not yet run against a live cluster by agentcage's own tests\n");
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(`agentcage plan: ${error instanceof Error ? error.message : String(error)}\n`);
    // What a Pod cannot honour is the command line's (or the declaration's) to change.
    return error instanceof AgentcageError && error.code === "kubernetes_refused" ? EXIT.usage : EXIT.unavailable;
  }
}
