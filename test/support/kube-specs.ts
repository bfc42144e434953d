// Many composed specs for the invariant and agreement tests: seeded, so a failure names a spec that
// comes back, and broad (users, limits, staging, entrypoints, env, labels, every extraArgs flag a
// Pod can honour). Tests only; the Run's workspace mounts are laid out as staging lays them out.
import { type ComposedSpec, composeSpec, type AgentContainer, validateAgentContainer } from "../../src/container/index.js";

/** mulberry32: a small seeded generator, enough to spread cases. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
const maybe = <T extends object>(random: () => number, value: T): T | Record<string, never> => (random() < 0.5 ? value : {});

/** A Run's workspace as staging mounts it: work/ (read-only unless writable) and its out/. */
function stagedWorkspace(runId: string, workdir: string, writable: boolean) {
  const work = { agentPath: workdir, path: `${runId}/work`, readOnly: !writable };
  return writable ? [work] : [work, { agentPath: `${workdir}/out`, path: `${runId}/work/out` }];
}

export function declarationFor(random: () => number): AgentContainer {
  const staged = random() < 0.7;
  const extraArgs = [
    ...(random() < 0.5 ? ["--env", "EXTRA_TOKEN=extra-secret-value-1"] : []),
    ...(random() < 0.5 ? ["-l", "team=agents"] : []),
    ...(random() < 0.3 ? ["--workdir=/srv/task"] : []),
    ...(random() < 0.3 ? ["--hostname", "cage"] : []),
    ...(random() < 0.3 ? ["--add-host", "models.internal:10.0.0.5"] : []),
    ...(random() < 0.3 ? ["--dns", "10.0.0.53"] : []),
    ...(random() < 0.2 ? ["--stop-signal", "SIGTERM"] : []),
  ];
  return {
    image: pick(random, ["agentcage-agent:1", `example.invalid/agents/claude@sha256:${"a".repeat(64)}`]),
    user: pick(random, ["10002:10002", "1000:1000", "65534:65534", "4242:100"]),
    ...maybe(random, { entrypoint: pick(random, [["/usr/bin/tini", "--"], ["sample-agent"], ["/bin/sh", "-c", "exec agent"]]) }),
    ...maybe(random, { env: { ANTHROPIC_API_KEY: "sk-ant-secret-value-123" } }),
    ...maybe(random, { publicEnv: { LANG: "C.UTF-8", PATH: "/usr/local/bin:/usr/bin:/bin" } }),
    ...maybe(random, { labels: { project: "demo", "example.com/tier": "batch" } }),
    ...maybe(random, { owner: pick(random, ["agentcage", "ci-runner.7", "svc_a"]) }),
    ...maybe(random, { containerRuntime: pick(random, ["runsc", "kata-qemu"]) }),
    ...(staged ? { staging: { runtimeDir: "/srv/agentcage/staging", writableWork: random() < 0.3 } } : {}),
    ...maybe(random, { workdir: "/work" }),
    limits: {
      ...maybe(random, { memoryBytes: pick(random, [64 * 1024 * 1024, 2 * 1024 ** 3, 3 * 1024 ** 3 + 5]) }),
      ...maybe(random, { cpus: pick(random, [0.25, 1, 1.5, 2.125, 16]) }),
      ...maybe(random, { tmpfsBytes: pick(random, [1024 * 1024, 64 * 1024 * 1024]) }),
      ...maybe(random, { stopGraceSeconds: pick(random, [0, 3, 10, 600]) }),
    },
    ...(extraArgs.length === 0 ? {} : { extraArgs }),
  };
}

export function specFor(declaration: AgentContainer, random: () => number, index: number): ComposedSpec {
  const container = validateAgentContainer(declaration);
  const runId = (index + 1).toString(16).padStart(16, "0");
  const workdir = container.staging === undefined ? undefined : (container.staging.agentWorkdir ?? "/work");
  return composeSpec(container, {
    runId,
    planArgs: pick(random, [["sample-agent"], ["claude", "-p", "--output-format", "stream-json"], []]),
    deadlineSeconds: pick(random, [1, 90, 3630, 86_430]),
    labels: { "agentcage.session": "0123456789abcdef", "agentcage.host": "builder-1", "agentcage.pid": "4242", "agentcage.deadline": "1796300000000" },
    ...maybe(random, { runEnv: { RUN_TOKEN: "per-run-token-value-9" } }),
    ...(workdir === undefined ? {} : { stagedMounts: stagedWorkspace(runId, workdir, container.staging?.writableWork ?? false) }),
  });
}

/** `count` specs from `seed`, each with the declaration it came from. */
export function manySpecs(seed: number, count: number): Array<{ readonly declaration: AgentContainer; readonly spec: ComposedSpec }> {
  const random = seeded(seed);
  return Array.from({ length: count }, (_, index) => {
    const declaration = declarationFor(random);
    return { declaration, spec: specFor(declaration, random, index) };
  });
}
