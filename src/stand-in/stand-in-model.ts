// Starts the stand-in model server (images/stand-in) for offline tests of an agent integration:
// it runs as a Run of its own through the library, in a locked-down container with no network,
// and an agent container that joins it (`container:<name>`) reaches it on loopback and nothing else.

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
const STARTUP_TIMEOUT_MS = 20_000;
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
};

/** Starts the stand-in with one of its scenarios (see test/stand-in/scenarios.ts); resolves once it listens. */
export async function startStandInModel(scenario: string, options: StandInOptions = {}): Promise<RunningStandIn> {
  const lines: Array<Record<string, unknown>> = [];
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
  const ended = runtime.run({ text: "" }, { signal: controller.signal }).then((outcome) => {
    failed(new Error(`the stand-in model ended before it listened (${outcome.reason}): ${outcome.error ?? outcome.stderr}`));
    return outcome;
  });
  const timer = setTimeout(() => failed(new Error(`the stand-in model did not listen within ${STARTUP_TIMEOUT_MS} ms`)), STARTUP_TIMEOUT_MS);
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
    clearTimeout(timer);
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
