// Starts the stand-in model server (images/stand-in) for offline tests of an agent integration:
// it runs as a Run of its own through the library, in a locked-down container with no network,
// and an agent container that joins it (`container:<name>`) reaches it on loopback and nothing else.
// Invariant (slow is not dead): its start waits for it to listen for as long as its container runs,
// with no bound of its own; only its Run's end (its container exited or gone) or a cancel ends it.

import { pino, type Logger } from "pino";
import { createAgentContainerRuntime } from "../runtime/index.js";
import { jsonLines } from "../plan/index.js";
import type { Engine } from "../engine/index.js";

export const STAND_IN_IMAGE = "agentcage-stand-in:latest";
export const STAND_IN_PORT = 8080;
/**
 * The stand-in image's own entrypoint, declared: it is the program itself, not a command runner,
 * so the Run's timer must run it (after the image's entrypoint, the timer's words would be its arguments).
 */
const STAND_IN_ENTRYPOINT = ["node", "/stand-in/test/stand-in/main.js"] as const;
/** The owner label of stand-in containers: their own, so a service's sweep never takes one for an agent. */
export const STAND_IN_OWNER = "agentcage-stand-in";
/** How often a start still waiting tells onWaiting so. */
const START_PROGRESS_MS = 5000;
/** The stand-in lives at most this long, whoever forgets to stop it. */
const STAND_IN_LIFETIME_SECONDS = 60 * 60;

/** One line the stand-in printed about a request it answered. */
export type StandInRequest = {
  readonly event: string;
  readonly method?: string;
  readonly path?: string;
  /** The conversation the request carried, one short entry per turn. */
  readonly history?: ReadonlyArray<{ readonly role: string; readonly text: string }>;
  /** SHA-256 (hex) of the credential the request carried: which key reached the model, never the key. */
  readonly credentialSha256?: string;
};

export type RunningStandIn = {
  /** The stand-in's container name. */
  readonly name: string;
  /** The network an agent container joins to reach it: `container:<name>`. */
  readonly network: string;
  readonly baseUrl: string;
  /** With `networks`: its URL there, by its container name. */
  readonly networkUrl?: string;
  /** The requests it has answered so far. */
  readonly requests: () => Promise<StandInRequest[]>;
  readonly stop: () => Promise<void>;
};

export type StandInOptions = {
  /** Default: `agentcage-stand-in:latest`. */
  readonly image?: string;
  /** Default: Docker from the environment. */
  readonly engine?: Engine;
  /** Where the stand-in's own Run logs; default: nowhere (a silent pino). */
  readonly logger?: Logger;
  /**
   * Networks the stand-in joins, listening on all its addresses there (as a provider the egress
   * proxy reaches); default: none, loopback only, for agents that join its namespace.
   */
  readonly networks?: readonly string[];
  /** Ends the start when aborted (a Ctrl-C, a service's stop): its container is removed and the start rejects. Default: none. */
  readonly signal?: AbortSignal;
  /** Told every few seconds while the start waits for the stand-in to listen (StartWaiting). Must not throw. Default: none. */
  readonly onWaiting?: (waiting: StartWaiting) => void;
};

/** A start still waiting: for how long so far, and whether the container runs yet (else the engine has yet to start it). */
export type StartWaiting = { readonly waitedMs: number; readonly running: boolean };

/**
 * Starts the stand-in with one of its scenarios (see test/stand-in/scenarios.ts); resolves once it
 * listens, however long that takes while its container runs. Rejects, its container removed, when
 * the container ends first (a sentence naming the stand-in model, how it ended and what it said),
 * or when `signal` aborts.
 */
export async function startStandInModel(scenario: string, options: StandInOptions = {}): Promise<RunningStandIn> {
  const lines: Array<Record<string, unknown>> = [];
  let running = false;
  let ready!: (name: string) => void;
  let failed!: (error: Error) => void;
  const listening = new Promise<string>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const runtime = createAgentContainerRuntime({
    container: {
      image: options.image ?? STAND_IN_IMAGE,
      entrypoint: [...STAND_IN_ENTRYPOINT],
      publicEnv: { SCENARIO: scenario, PORT: String(STAND_IN_PORT), ...(options.networks === undefined ? {} : { HOST: "0.0.0.0" }) },
      ...(options.networks === undefined ? {} : { networks: options.networks }),
      user: "10002:10002",
      owner: STAND_IN_OWNER,
      timeoutSeconds: STAND_IN_LIFETIME_SECONDS,
      limits: { stopGraceSeconds: 2 },
      labels: { "agentcage-demo": "stand-in" },
      logger: options.logger ?? pino({ level: "silent" }),
    },
    ...(options.engine === undefined ? {} : { engine: options.engine }),
    run: (_prompt, { runId }) => ({
      args: [],
      stdin: "",
      outcome: async (stdout) => {
        // The reader is handed the output once the engine has started the container.
        running = true;
        for await (const line of jsonLines(stdout)) {
          if (line.kind !== "json") continue;
          lines.push(line.value);
          if (line.value["event"] === "listening") ready(`agentcage-${runId}`);
        }
        return { ok: true };
      },
    }),
  });
  const controller = new AbortController();
  const cancel = (): void => failed(new Error(`the stand-in model's start was cancelled (${reasonOf(options.signal)}); its container is removed`));
  if (options.signal?.aborted === true) cancel();
  options.signal?.addEventListener("abort", cancel, { once: true });
  const ended = runtime.run({ text: "" }, { signal: controller.signal }).then((outcome) => {
    failed(new Error(`the stand-in model ${endedWords(outcome)} before it listened: ${outcome.error ?? outcome.stderr}`));
    return outcome;
  });
  const began = performance.now();
  const progress = setInterval(() => options.onWaiting?.({ waitedMs: Math.round(performance.now() - began), running }), START_PROGRESS_MS);
  progress.unref();
  const stop = async (): Promise<void> => {
    controller.abort();
    await ended;
  };
  let name: string;
  try {
    name = await listening;
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearInterval(progress);
    options.signal?.removeEventListener("abort", cancel);
  }
  const requests = async (): Promise<StandInRequest[]> => lines.filter((line) => line["event"] === "request") as StandInRequest[];
  return {
    name,
    network: `container:${name}`,
    baseUrl: `http://127.0.0.1:${STAND_IN_PORT}`,
    ...(options.networks === undefined ? {} : { networkUrl: `http://${name}:${STAND_IN_PORT}` }),
    requests,
    stop,
  };
}

/** "exited (code 137, SIGKILL)" or how else its Run ended ("ended (unavailable)"), said after "the stand-in model". */
function endedWords(outcome: { readonly reason: string; readonly exit?: { readonly code: number; readonly signal?: string } }): string {
  if (outcome.exit === undefined) return `ended (${outcome.reason})`;
  return `exited (code ${outcome.exit.code}${outcome.exit.signal === undefined ? "" : `, ${outcome.exit.signal}`})`;
}

/** What an aborted signal was aborted with, as words. */
function reasonOf(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "aborted";
}

/** A key the stand-in accepts; made up, and masked like a real one wherever it could show. */
const STAND_IN_KEY = "sk-stand-in-made-up-key";

/** A made-up key for each CLI: all a runner needs when the stand-in sits behind the egress proxy (startEgressGateway's `standIn`). */
export const STAND_IN_ENVIRONMENT: Readonly<Record<string, string>> = { ANTHROPIC_API_KEY: STAND_IN_KEY, OPENAI_API_KEY: STAND_IN_KEY };

/**
 * The codex model a request that names none runs with against the stand-in: the one its fixtures
 * were captured with. For its own default model the pinned codex offers a custom provider no
 * tools, so `[stand-in:tool_write_bash]` would get a plain answer and write nothing.
 */
export const STAND_IN_CODEX_MODEL = "gpt-5.5";

/**
 * What an agent runner needs to run both CLIs against a running stand-in: its network, its URLs,
 * the codex model it answers tools for, and a made-up key for each CLI (the stand-in takes any).
 */
export function standInRunnerOptions(standIn: Pick<RunningStandIn, "network" | "baseUrl">) {
  return {
    networks: [standIn.network],
    environment: STAND_IN_ENVIRONMENT,
    anthropicBaseUrl: standIn.baseUrl,
    codexProvider: { baseUrl: `${standIn.baseUrl}/v1`, model: STAND_IN_CODEX_MODEL },
    standIn: true,
  } as const;
}
