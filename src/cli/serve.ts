// `agentcage serve`: starts the service (its Runs as Pods with --kubernetes) and drains it on SIGTERM
// or Ctrl-C (no new Runs; running ones get the drain grace, then are cancelled), then exits 0.

import { kubernetesServeRefusal, serve, ServeError, type ServeOptions } from "../server/index.js";
import { kubernetesBackend } from "./kube-config.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";

/** `kubernetesNamespace` (--kubernetes): each Run a Pod there; what binds Docker is refused before the kubeconfig is read. */
export async function serveCommand(options: ServeOptions, io: ProgramIo, kubernetesNamespace?: string): Promise<number> {
  if (kubernetesNamespace !== undefined) {
    const refusal = kubernetesServeRefusal(options);
    if (refusal !== undefined) throw new UsageError(refusal);
  }
  const kubernetes = kubernetesNamespace === undefined ? {} : { kubernetes: await kubernetesBackend(kubernetesNamespace) };
  let running;
  try {
    running = await serve({ ...options, ...kubernetes });
  } catch (error) {
    if (error instanceof ServeError) throw new UsageError(error.message);
    throw error;
  }
  io.stderr.write(`agentcage serve: listening on ${running.url}${running.tokenFile === undefined ? "" : `; token in ${running.tokenFile}`}\n`);
  io.stderr.write(`agentcage serve: the console is at ${new URL("/", running.url).href} (sign in with that token, or a tenant's key)\n`);
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      io.stderr.write(`agentcage serve: ${signal}: no new Runs; draining\n`);
      running.stop().then(
        () => resolve(EXIT.completed),
        (error: unknown) => {
          io.stderr.write(`agentcage serve: the drain failed: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve(EXIT.failed);
        },
      );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    io.onInterrupt(() => stop("SIGINT"));
  });
}
