// A user's project, as the package test writes it: one ES module and one CommonJS module that use
// agentcage and each of its subpaths (runtime, kubernetes, egress, agents, testing, client) the way
// the docs do, compiled under the strictest flags with
// the library's own .d.ts files checked. Each prints what it computed as one JSON line, starting
// no container. Kept as text here: the repository's own type-check must not resolve "agentcage".

/** The consumer's tsconfig: strict, exact optional properties, checked indexing, and no skipLibCheck. */
export const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    lib: ["ES2023"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    outDir: "out",
  },
  files: ["esm.mts", "cjs.cts"],
};

/** What each consumer prints. */
export type ConsumerReport = {
  readonly kind: "esm" | "cjs";
  readonly runtimeArgs: string[];
  readonly agentArgs: string[];
  readonly images: string[];
  readonly imageNames: string[];
  readonly reason: string;
  readonly client: string;
  readonly subpaths: string[];
};

// The body both consumers share: every public type a caller meets is named, and an engine or a
// dockerode instance is passed where the options take one.
const BODY = `
const secretFile: SecretFile = { agentPath: "/tmp/.config/token", content: "file-secret" };
const runOptions: RunOptions = { timeoutSeconds: 60, env: { RUN_TOKEN: "run-secret" }, secretFiles: [secretFile], secrets: ["run-secret"] };
const engine: Engine = createDockerEngine(new Docker({ socketPath: "/var/run/docker.sock" }));
const container: AgentContainer = { image: "agentcage-test:latest", env: { API_TOKEN: "declared-secret" }, limits: { memoryBytes: limits.DEFAULT_MEMORY_BYTES } };
const runtime = createAgentContainerRuntime({
  container,
  engine,
  run: (prompt: RunPrompt) => ({ args: ["sample-agent", "--once"], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
});
const request: AgentRequestInput = { cli: "claude", model: "sonnet", maxTurns: 3 };
const agents = createAgentRunner({ image: AGENT_IMAGE, docker: new Docker(), environment: { ANTHROPIC_API_KEY: "sk-consumer" } });
const buildOptions: BuildAgentImagesOptions = { engine, images: ["stand-in"] };
const dockerBuildOptions: BuildAgentImagesOptions = { docker: new Docker(), tags: { agent: "agentcage-agent:consumer" } };
const describeOutcome = (outcome: AgentOutcome | Outcome): string => \`\${outcome.reason}\${outcome.error === undefined ? "" : \`: \${outcome.error}\`}\`;
const notRun: EndReason = "completed";
let standIn: RunningStandIn | undefined;
const service: AgentcageClient = createClient({ baseUrl: "http://127.0.0.1:8750", token: "service-token" });
const onEvent = (event: RunEvent): string => (event.type === "end" ? event.data.reason : event.type);
const refusal = (error: unknown): number | undefined => (error instanceof ServiceError ? error.status : undefined);
const engines: EngineSet | undefined = undefined;
const cluster: KubeApi | undefined = undefined;
const meter = (usage: EgressUsage | undefined): number => usage?.inputTokens ?? 0;
const claudeSaid = async function* (): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode('{"type":"result","subtype":"success","is_error":false,"result":"hi"}\\n');
};

async function report(kind: "esm" | "cjs"): Promise<string> {
  const command = runtime.commandFor({ text: "hi" }, { env: runOptions.env ?? {} });
  const agentCommand = await agents.commandFor(request, "Say hi.");
  if (standIn !== undefined || typeof startStandInModel !== "function" || typeof buildAgentImages !== "function") throw new Error("the testing export is incomplete");
  if (engines !== undefined || cluster !== undefined || meter(undefined) !== 0) throw new Error("the subpaths' types are not what they were");
  const parsed: AgentResult = await parseClaudeStream(claudeSaid());
  return JSON.stringify({
    kind,
    runtimeArgs: command.redactedArgs,
    agentArgs: agentCommand.redactedArgs,
    images: [AGENT_IMAGE, STAND_IN_IMAGE],
    imageNames: [...AGENT_IMAGE_NAMES, ...(buildOptions.images ?? [])],
    reason: describeOutcome({ runId: "r", ok: true, reason: notRun, durationMs: 1, stdoutBytes: 0, stderrBytes: 0, stderr: "" } as Outcome),
    client: \`\${service.baseUrl.href} \${typeof service.follow} \${onEvent({ type: "state", id: 1, data: { state: "running" } })} \${refusal(new Error("x"))}\`,
    subpaths: [POOL_LABEL, PSS_ENFORCE_LABEL, DEFAULT_EGRESS_IMAGE, ...MODEL_PROVIDERS, \`\${parsed.reason} \${parsed.text}\`],
  });
}
`;

const IMPORTS = `
  createAgentContainerRuntime,
  createAgentRunner,
  limits,
  type AgentContainer,
  type AgentOutcome,
  type AgentRequestInput,
  type AgentResult,
  type EndReason,
  type Outcome,
  type RunOptions,
  type RunPrompt,
  type SecretFile,
`;
const TESTING_IMPORTS = `AGENT_IMAGE, AGENT_IMAGE_NAMES, STAND_IN_IMAGE, buildAgentImages, startStandInModel, type BuildAgentImagesOptions, type RunningStandIn`;
const CLIENT_IMPORTS = `createClient, ServiceError, type AgentcageClient, type RunEvent`;
/** One import a subpath: what a caller of an advanced option names. */
const SUBPATH_IMPORTS = `import { createDockerEngine, POOL_LABEL, type Engine, type EngineSet } from "agentcage/runtime";
import { PSS_ENFORCE_LABEL, type KubeApi } from "agentcage/kubernetes";
import { DEFAULT_EGRESS_IMAGE, type EgressUsage } from "agentcage/egress";
import { MODEL_PROVIDERS, parseClaudeStream } from "agentcage/agents";`;

/** esm.mts: imports, and top-level await. */
export const ESM_CONSUMER = `import Docker from "dockerode";
import {${IMPORTS}} from "agentcage";
import { ${TESTING_IMPORTS} } from "agentcage/testing";
import { ${CLIENT_IMPORTS} } from "agentcage/client";
${SUBPATH_IMPORTS}
${BODY}
console.log(await report("esm"));
`;

/** cjs.cts: compiled to require() of the ES module package. */
export const CJS_CONSUMER = `import Docker = require("dockerode");
import {${IMPORTS}} from "agentcage";
import { ${TESTING_IMPORTS} } from "agentcage/testing";
import { ${CLIENT_IMPORTS} } from "agentcage/client";
${SUBPATH_IMPORTS}
${BODY}
report("cjs").then(
  (line) => console.log(line),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
`;

/** stand-in.mts: starts the stand-in model from agentcage/testing and fetches its front page from a container that joins it. */
export const STAND_IN_CONSUMER = `import { createAgentContainerRuntime } from "agentcage";
import { startStandInModel } from "agentcage/testing";

const standIn = await startStandInModel("plain");
try {
  const runtime = createAgentContainerRuntime({
    container: { image: "agentcage-test:latest", networks: [standIn.network], owner: "agentcage-package-test" },
    run: () => ({
      args: ["wget", "-q", "-O", "-", \`\${standIn.baseUrl}/\`],
      stdin: "",
      outcome: async (stdout) => {
        let text = "";
        for await (const chunk of stdout) text += Buffer.from(chunk).toString();
        return { ok: true, text };
      },
    }),
  });
  const outcome = await runtime.run({ text: "" }, { timeoutSeconds: 30 });
  console.log(JSON.stringify({ reason: outcome.reason, error: outcome.error, text: outcome.result?.text, requests: await standIn.requests() }));
} finally {
  await standIn.stop();
}
`;

/**
 * egress.mjs TAG: builds the orchestrator image from the installed package under TAG with
 * agentcage/testing, then starts the egress proxy from it with agentcage (the stand-in model behind
 * it), asks its control socket about a Run it does not know, and stops it.
 */
export const EGRESS_CONSUMER = `import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { startEgressGateway } from "agentcage";
import { buildAgentImages, INPUTS_LABEL } from "agentcage/testing";

const tag = process.argv[2];
const docker = new Docker();
const [built] = await buildAgentImages({ docker, images: ["orchestrator"], tags: { orchestrator: tag } });
const inputs = (await docker.getImage(tag).inspect()).Config.Labels[INPUTS_LABEL];
const runtimeDir = await mkdtemp(path.join(tmpdir(), "agentcage-package-egress-"));
try {
  const gateway = await startEgressGateway({ runtimeDir, image: tag, standIn: true });
  try {
    const unknown = await gateway.meter("run-the-proxy-never-saw");
    const running = (await docker.getContainer(gateway.container).inspect()).State.Running;
    console.log(JSON.stringify({ tag: built.tag, built: built.built, inputs, running, unknown: unknown ?? null }));
  } finally {
    await gateway.close();
  }
} finally {
  await rm(runtimeDir, { recursive: true, force: true });
}
`;
