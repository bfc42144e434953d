// `agentcage serve`: starts the service (its Runs as Pods with --kubernetes) and drains it on SIGTERM
// or Ctrl-C (no new Runs; running ones get the drain grace, then are cancelled), then exits 0. A
// SIGTERM or Ctrl-C while it starts stops what it had started (no container is left) and exits 130;
// a start it cannot make (an option, the address, the stand-in or the proxy that would not start)
// is a refusal: exit 2, with its sentence.

import type { AssemblyStep, AssemblyWaiting } from "../runner/index.js";
import { refusalsOf } from "../runtime/index.js";
import { serve, ServeError, serveRefusal, type RunningService, type ServeOptions } from "../server/index.js";
import { kubernetesBackend } from "./kube-config.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";

/** `kubernetesNamespace` (--kubernetes): each Run a Pod there; what binds Docker is refused before the kubeconfig is read. */
export async function serveCommand(options: ServeOptions, io: ProgramIo, kubernetesNamespace?: string): Promise<number> {
  const refusal = serveRefusal(options, refusalsOf({ kubernetes: kubernetesNamespace }));
  if (refusal !== undefined) throw new UsageError(refusal);
  const starting = new AbortController();
  let stop: ((signal: string) => void) | undefined;
  // Heard from the first step on: a signal while it starts ends the start; after it, the drain.
  const heard = (signal: string): void => {
    if (stop !== undefined) {
      stop(signal);
      return;
    }
    if (starting.signal.aborted) return;
    io.stderr.write(`agentcage serve: ${signal} while starting: stopping what it started\n`);
    starting.abort(new Error(signal));
  };
  const onTerm = (): void => heard("SIGTERM");
  process.on("SIGTERM", onTerm);
  io.onInterrupt(() => heard("SIGINT"));
  let running: RunningService;
  try {
    const kubernetes = kubernetesNamespace === undefined ? {} : { kubernetes: await kubernetesBackend(kubernetesNamespace) };
    if (starting.signal.aborted) return stoppedWhileStarting(io);
    running = await serve({
      ...options,
      ...kubernetes,
      signal: starting.signal,
      onWaiting: (step, waiting) => io.stderr.write(`${stillStarting(step, waiting)}\n`),
    });
  } catch (error) {
    process.off("SIGTERM", onTerm);
    if (starting.signal.aborted) return stoppedWhileStarting(io);
    if (error instanceof ServeError) throw new UsageError(error.message);
    throw error;
  }
  io.stderr.write(`agentcage serve: listening on ${running.url}${running.tokenFile === undefined ? "" : `; token in ${running.tokenFile}`}\n`);
  io.stderr.write(`agentcage serve: the console is at ${new URL("/", running.url).href} (sign in with that token, or a tenant's key)\n`);
  return new Promise((resolve) => {
    let stopping = false;
    stop = (signal: string) => {
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
  });
}

/** "agentcage serve: the stand-in model is still starting (its container runs; 25 s so far)". */
function stillStarting(step: AssemblyStep, waiting: AssemblyWaiting): string {
  const what = step === "egress proxy with the stand-in" ? "egress proxy, with the stand-in model behind it," : step;
  const where = waiting.running ? "its container runs" : "the engine has yet to start its container";
  return `agentcage serve: the ${what} is still starting (${where}; ${Math.round(waiting.waitedMs / 1000)} s so far)`;
}

/** Said once what the start had made is stopped. */
function stoppedWhileStarting(io: ProgramIo): number {
  io.stderr.write("agentcage serve: stopped while starting; nothing it started is left running\n");
  return EXIT.cancelled;
}
