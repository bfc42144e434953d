// Which version of each agent CLI an image holds, asked of the CLI itself: `<cli> --version` in a
// locked-down container of that image, with a Run's own environment and no network. That is the
// truth of the image as built; a label would only say what its build meant to put there.

import { pino, type Logger } from "pino";
import { createAgentContainerRuntime, describeValue } from "../runtime/index.js";
import { PREFLIGHT_OUTPUT_BYTES, PREFLIGHT_TIMEOUT_SECONDS, PREFLIGHT_OWNER, type EngineConnection } from "../probes/index.js";
import type { ReaderVerdict } from "../plan/index.js";
import { everyPublicEnvironment, AGENT_CLIS, type AgentCli } from "../agents/index.js";
import { AgentRunnerError } from "./runner-options.js";

export type CliVersionOptions = EngineConnection & {
  /** The agent image. */
  readonly image: string;
  /** How long each CLI may take to say its version; default PREFLIGHT_TIMEOUT_SECONDS. */
  readonly timeoutSeconds?: number;
  /** Default: silent (the result says everything). */
  readonly logger?: Logger;
  readonly signal?: AbortSignal;
};

/** `version` is the first dotted version the CLI printed; `said` its first line, as printed (control characters dropped). */
export type CliVersion = { readonly ok: true; readonly version: string; readonly said: string } | { readonly ok: false; readonly error: string };

const OPTION_NAMES = ["docker", "engine", "image", "timeoutSeconds", "logger", "signal"];
/** The first dotted version on a line, "v" or a word before it allowed ("v1.2.3", "codex-cli 0.171.0"). */
const VERSION = /(?<![0-9.])(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)/;
/** Terminal escapes (colour) and other control characters: not part of what a CLI says. */
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|[\u0000-\u001f\u007f-\u009f]/g;

type Said = ReaderVerdict & { readonly version?: string; readonly said?: string };

export async function agentCliVersions(options: CliVersionOptions, ...extra: never[]): Promise<Readonly<Record<AgentCli, CliVersion>>> {
  if (extra.length > 0) throw new AgentRunnerError(`agentCliVersions takes one argument, { image }; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null)
    throw new AgentRunnerError(`agentCliVersions's options ${describeValue(options)} is not an object; pass { image }`);
  const unknown = Object.keys(options).filter((key) => !OPTION_NAMES.includes(key));
  if (unknown.length > 0)
    throw new AgentRunnerError(`agentCliVersions option ${JSON.stringify(unknown[0])} is not one it knows; use ${OPTION_NAMES.join(", ")}`);
  if (typeof options.image !== "string" || options.image.trim() === "") {
    throw new AgentRunnerError(`image ${describeValue(options.image)} is not an image reference; write the agent image, such as "agentcage-agent:latest"`);
  }
  const runtimes = AGENT_CLIS.map((cli) => [cli, versionRuntime(cli, options)] as const);
  const reports = await Promise.all(
    runtimes.map(async ([cli, runtime]): Promise<[AgentCli, CliVersion]> => {
      const outcome = await runtime.run({ text: "" }, options.signal === undefined ? {} : { signal: options.signal });
      const { version, said } = outcome.result ?? {};
      if (outcome.ok && version !== undefined && said !== undefined) return [cli, { ok: true, version, said }];
      return [cli, { ok: false, error: `${cli} --version in ${JSON.stringify(options.image)}: ${outcome.error ?? outcome.reason}` }];
    }),
  );
  return Object.fromEntries(reports) as Record<AgentCli, CliVersion>;
}

/** The CLI itself as the entrypoint: whatever the image's own would do with the words, the CLI is what answers. */
function versionRuntime(cli: AgentCli, options: CliVersionOptions) {
  return createAgentContainerRuntime<Said>({
    container: {
      image: options.image,
      entrypoint: [cli],
      // As a Run of the runner has it: every CLI's public variables (each ignores the others').
      publicEnv: everyPublicEnvironment(),
      owner: PREFLIGHT_OWNER,
      timeoutSeconds: options.timeoutSeconds ?? PREFLIGHT_TIMEOUT_SECONDS,
      logger: options.logger ?? pino({ level: "silent" }),
    },
    ...(options.docker === undefined ? {} : { docker: options.docker }),
    ...(options.engine === undefined ? {} : { engine: options.engine }),
    maxConcurrentRuns: 1,
    run: () => ({ args: ["--version"], stdin: "", outcome: readVersion }),
  });
}

async function readVersion(stdout: AsyncIterable<Uint8Array>): Promise<Said> {
  let text = "";
  for await (const chunk of stdout) {
    if (text.length < PREFLIGHT_OUTPUT_BYTES) text += Buffer.from(chunk).toString("utf8");
  }
  const line = (
    text
      .split("\n")
      .map((l) => l.replace(ESCAPES, ""))
      .find((l) => VERSION.test(l)) ?? ""
  ).trim();
  const version = VERSION.exec(line)?.[1];
  if (version === undefined) {
    return { ok: false, error: text.trim() === "" ? "it printed no version" : `it printed no version: ${JSON.stringify(text.slice(0, 200))}` };
  }
  return { ok: true, version, said: line.slice(0, 200) };
}
