// The deployment end to end: compose.yaml brought up for real by docker-compose 1.29 under a
// project name of the test's own, in stand-in mode, from an env file the test writes (a token in a
// secret file, a Staging Directory under a temporary path, a free loopback port); a Run submitted
// over HTTP to the published port, which the agent answers through the egress service (the stand-in
// model runs behind it, in its container); then what an agent container reaches: the egress proxy
// on the Run's own internal network, and not the orchestrator, the published API, the proxy's way
// out or the docker socket. A second project of the same file on the same engine runs a Run through
// its own proxy beside it (nothing in the file is named across projects). A third, with
// compose.engines.yaml laid over it, runs its Run on the engines AGENTCAGE_ENGINES names through a
// proxy its orchestrator started. All taken down after, leaving no container, network or volume.
// Traffic goes only to loopback and to the containers and networks this test made.

import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnv, runCommand } from "../support/command.js";
import { docker } from "../support/engine.js";
import { AGENT_IMAGE, STAND_IN_IMAGE } from "../support/stand-in-container.js";
import { dockerCompose, ENGINES_COMPOSE_FILE, ORCHESTRATOR_IMAGE, ORCHESTRATOR_UID, useCurrentOrchestratorImage } from "./docker-compose.js";

const PROJECT = `agentcage-e2e-${randomBytes(4).toString("hex")}`;
/** A second deployment of the same compose.yaml on the same engine, under a project name of its own. */
const SECOND_PROJECT = `${PROJECT}-b`;
const API_NETWORK = `${PROJECT}_api`;
const EGRESS_NETWORK = `${PROJECT}_egress`;
/** Marks the probe containers this test starts, so that nothing of them can outlive it. */
const PROBE_LABEL = `agentcage-compose-test=${PROJECT}`;
const SOCKET = "/var/run/docker.sock";
const TOKEN = randomBytes(24).toString("hex");
/** An orchestrator is ready in 10-20 s on an idle machine; a loaded CI host has taken over 90 s. */
const READY_WITHIN_MS = 180_000;
/** How long one HTTP request to the deployment may take. */
const REQUEST_TIMEOUT_MS = 10_000;
const RUN_WITHIN_MS = 60_000;
/** What each agent may write in the deployments (AGENTCAGE_WRITABLE_BYTES): small, so a test can write past it quickly. */
const WRITABLE_BYTES = 4 * 1024 * 1024;

const root = mkdtempSync(join(tmpdir(), "agentcage-compose-e2e-"));

/** One deployment: its project, its Staging Directory and env file, its published API, its two long-lived containers. */
type Deployment = {
  readonly project: string;
  /** What its env file says beyond what every deployment's does. */
  readonly env: readonly string[];
  readonly runtimeDir: string;
  readonly envFile: string;
  readonly compose: (...args: string[]) => string;
  port: number;
  base: string;
  /** The orchestrator's container: its id, its hostname (what its Runs' ownership labels name) and its address on its own network. */
  orchestrator: { id: string; hostname: string; address: string };
  /** The egress proxy's container: its id and its name (compose's, from the project). */
  egress: { id: string; name: string };
};

function deploymentOf(project: string, name: string, over: { overrides?: readonly string[]; env?: readonly string[] } = {}): Deployment {
  const runtimeDir = join(root, name, "runtime");
  const envFile = join(root, name, "deploy.env");
  return {
    project,
    env: over.env ?? [],
    runtimeDir,
    envFile,
    compose: (...args) => dockerCompose({ project, envFile, overrides: over.overrides ?? [] }, ...args),
    port: 0,
    base: "",
    orchestrator: { id: "", hostname: "", address: "" },
    egress: { id: "", name: "" },
  };
}

const first = deploymentOf(PROJECT, "a");
const second = deploymentOf(SECOND_PROJECT, "b");
/** Runs on the engines AGENTCAGE_ENGINES names (here only this one, as "here"), each with a proxy serve starts. */
const onEngines = deploymentOf(`${PROJECT}-engines`, "engines", { overrides: [ENGINES_COMPOSE_FILE], env: ["AGENTCAGE_ENGINES=local,name=here"] });
const everyDeployment = [first, second, onEngines];
const compose = first.compose;
const runtimeDir = first.runtimeDir;

type RunView = {
  readonly id: string;
  readonly state: string;
  readonly outcome?: { readonly ok: boolean; readonly reason: string; readonly error?: string; readonly result?: { readonly text?: string } };
};

/** One request to a deployment's API (the first's unless said). The one place a test talks to the API. */
async function api(path: string, body?: unknown, to: Deployment = first): Promise<unknown> {
  const response = await fetch(`${to.base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`${body === undefined ? "GET" : "POST"} ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

async function untilRun(id: string, done: (run: RunView) => boolean, to: Deployment = first): Promise<RunView> {
  const deadline = Date.now() + RUN_WITHIN_MS;
  for (;;) {
    const run = (await api(`/v1/runs/${id}`, undefined, to)) as RunView;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`Run ${id} is still ${run.state} after ${RUN_WITHIN_MS} ms`);
    await sleep(200);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
}

/**
 * What a shell in an agent container says of the socket and of each `host:port`: `socket absent`
 * or `socket present`, then `<host:port> reached` or `unreachable` (3 s each, bash's /dev/tcp).
 */
const PROBE = `
  if [ -e ${SOCKET} ]; then echo "socket present"; else echo "socket absent"; fi
  for target in "$@"; do
    if timeout 3 bash -c 'exec 3<>"/dev/tcp/\${1%:*}/\${1##*:}"' _ "$target" 2>/dev/null; then echo "$target reached"; else echo "$target unreachable"; fi
  done`;

function probeIn(network: string, ...targets: string[]): string[] {
  const out = docker(
    "run",
    "--rm",
    "--label",
    PROBE_LABEL,
    "--network",
    network,
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    AGENT_IMAGE,
    "bash",
    "-c",
    PROBE,
    "probe",
    ...targets,
  );
  return out.split("\n");
}

function composeLogs(of: Deployment = first): string {
  try {
    return of.compose("logs", "--no-color", "--tail", "60");
  } catch (error) {
    return `(no logs: ${(error as Error).message})`;
  }
}

/** What of a deployment still exists on the engine: compose's, the orchestrator's Runs and stand-in, this test's probes. */
function leftovers(of: Deployment = first): { containers: string[]; networks: string[]; volumes: string[] } {
  const lines = (text: string) => text.split("\n").filter((line) => line !== "");
  const { hostname } = of.orchestrator;
  const containers = [
    ...lines(docker("ps", "--all", "--quiet", "--filter", `label=com.docker.compose.project=${of.project}`)),
    ...lines(docker("ps", "--all", "--quiet", "--filter", `label=${PROBE_LABEL}`)),
    ...(hostname === "" ? [] : lines(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.host=${hostname}`))),
  ];
  const networks = [
    ...lines(docker("network", "ls", "--quiet", "--filter", `label=com.docker.compose.project=${of.project}`)),
    // Each Run's own network, labelled like its container.
    ...(hostname === "" ? [] : lines(docker("network", "ls", "--quiet", "--filter", `label=agentcage.host=${hostname}`))),
  ];
  for (const name of [`${of.project}_api`, `${of.project}_egress`])
    if (lines(docker("network", "ls", "--quiet", "--filter", `name=^${name}$`)).length > 0) networks.push(name);
  const volumes = [
    ...lines(docker("volume", "ls", "--quiet", "--filter", `label=com.docker.compose.project=${of.project}`)),
    // A Run's own volume (what its agent writes, bounded), labelled like its container.
    ...(hostname === "" ? [] : lines(docker("volume", "ls", "--quiet", "--filter", `label=agentcage.host=${hostname}`))),
  ];
  return { containers: [...new Set(containers)], networks: [...new Set(networks)], volumes: [...new Set(volumes)] };
}

function tearDown(of: Deployment = first): void {
  of.compose("down", "--volumes", "--remove-orphans", "--timeout", "45");
}

/** Writes a deployment's env file and brings it up; `ready` waits for its API. */
async function bringUp(of: Deployment): Promise<void> {
  // The Staging Directory and the token's secret file belong to the image's user, as .env.example says.
  mkdirSync(of.runtimeDir, { recursive: true, mode: 0o700 });
  const tokenFile = join(root, `${of.project}.token`);
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o400 });
  if (process.getuid?.() === 0) {
    for (const path of [of.runtimeDir, tokenFile]) chownSync(path, ORCHESTRATOR_UID, ORCHESTRATOR_UID);
  } else {
    chmodSync(of.runtimeDir, 0o777);
    chmodSync(tokenFile, 0o444);
  }
  of.port = await freeLoopbackPort();
  of.base = `http://127.0.0.1:${of.port}`;
  writeFileSync(
    of.envFile,
    [
      `DOCKER_GID=${statSync(SOCKET).gid}`,
      `AGENTCAGE_RUNTIME_DIR=${of.runtimeDir}`,
      `AGENTCAGE_TOKEN_SECRET_FILE=${tokenFile}`,
      `AGENTCAGE_PORT=${of.port}`,
      // No egress container named: each orchestrator finds its own project's proxy.
      // The default policy, said here so the test reads on its own: agents reach only the egress proxy.
      "AGENTCAGE_NETWORK_POLICY=model",
      "AGENTCAGE_STAND_IN=1",
      `AGENTCAGE_WRITABLE_BYTES=${WRITABLE_BYTES}`,
      // The orchestrator starts only when `agentcage doctor` passes in its container.
      "AGENTCAGE_DOCTOR=1",
      ...of.env,
      "",
    ].join("\n"),
  );
  of.compose("up", "--detach", "--no-build");
  const id = of.compose("ps", "--quiet", "orchestrator").trim();
  of.orchestrator = {
    id,
    hostname: docker("inspect", "--format", "{{.Config.Hostname}}", id),
    address: docker("inspect", "--format", `{{(index .NetworkSettings.Networks "${of.project}_api").IPAddress}}`, id),
  };
  const egress = of.compose("ps", "--quiet", "egress").trim();
  of.egress = { id: egress, name: docker("inspect", "--format", "{{.Name}}", egress).replace(/^\//, "") };
}

async function ready(of: Deployment): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const answered = await fetch(`${of.base}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline || docker("inspect", "--format", "{{.State.Running}}", of.orchestrator.id) !== "true") {
      throw new Error(`the orchestrator of ${of.project} was not ready on ${of.base} within ${READY_WITHIN_MS} ms; its logs:\n${composeLogs(of)}`);
    }
    await sleep(250);
  }
}

beforeAll(async () => {
  // The image of the code under test (compiled by test/support/build-once.ts): unchanged code reuses it (its inputs digest), else it is rebuilt.
  await useCurrentOrchestratorImage();
  for (const image of [ORCHESTRATOR_IMAGE, AGENT_IMAGE, STAND_IN_IMAGE]) {
    expect(() => docker("image", "inspect", "--format", "{{.Id}}", image), `${image} is missing; run npm run provision`).not.toThrow();
  }
  // Both up before either is waited for: their start-ups (doctor, then serve) overlap.
  for (const of of everyDeployment) await bringUp(of);
  await Promise.all(everyDeployment.map(ready));
}, 600_000);

afterAll(() => {
  try {
    for (const of of everyDeployment) {
      try {
        if (existsSync(of.envFile)) tearDown(of);
      } finally {
        const left = leftovers(of);
        if (left.containers.length > 0) docker("rm", "--force", "--volumes", ...left.containers);
        for (const network of left.networks) docker("network", "rm", network);
        for (const volume of left.volumes) docker("volume", "rm", "--force", volume);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 180_000);

describe("the deployment brought up with docker-compose", () => {
  it("serves only after agentcage doctor passed in the orchestrator's container", () => {
    const logs = compose("logs", "--no-color", "orchestrator");
    expect(logs).toMatch(/ok +staging on engine/);
    expect(logs).toMatch(/agentcage doctor: \d+ ok/);
    expect(logs.indexOf("agentcage doctor:")).toBeLessThan(logs.indexOf("agentcage serve: listening"));
  });

  it("runs a Run submitted with `agentcage run --remote` to the published port", async () => {
    const done = await runCommand(
      ["run", "claude", "What is the capital of France?", "--remote", first.base, "--json"],
      commandEnv({ AGENTCAGE_TOKEN: TOKEN }),
    );
    expect(done.code, done.stderr).toBe(0);
    const outcome = JSON.parse(done.stdout) as { ok: boolean; reason: string; result?: { text?: string } };
    expect(outcome).toMatchObject({ ok: true, reason: "completed" });
    expect(outcome.result?.text).toContain("Paris");
    const run = await untilRun(/accepted as Run ([0-9a-f]{16})/.exec(done.stderr)?.[1] as string, (r) => r.state === "completed");
    expect(run.outcome?.result?.text).toContain("Paris");
  }, 120_000);

  it("gives the docker socket to the orchestrator alone; the egress proxy holds none, and neither shares a network with the other", () => {
    const inspected = JSON.parse(docker("inspect", first.orchestrator.id))[0];
    expect(inspected.Mounts).toContainEqual(expect.objectContaining({ Source: SOCKET, Destination: SOCKET }));
    expect(inspected.Mounts).toContainEqual(expect.objectContaining({ Source: runtimeDir, Destination: runtimeDir }));
    expect(Object.keys(inspected.NetworkSettings.Networks)).toEqual([API_NETWORK]);
    expect(inspected.Config.User).toBe(`${ORCHESTRATOR_UID}:${ORCHESTRATOR_UID}`);
    expect(inspected.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ["ALL"], Privileged: false, GroupAdd: [String(statSync(SOCKET).gid)] });
    expect(inspected.State.Health.Status).not.toBe("unhealthy");
    const holders = docker("ps", "--all", "--quiet", "--filter", `label=com.docker.compose.project=${PROJECT}`)
      .split("\n")
      .filter((id) =>
        (JSON.parse(docker("inspect", id))[0].Mounts as Array<{ Source: string; Destination: string }>).some(
          (m) => m.Destination === SOCKET || m.Source.includes("docker.sock"),
        ),
      )
      .map((id) => JSON.parse(docker("inspect", id))[0].Id as string);
    expect(holders).toEqual([inspected.Id]);

    const egress = JSON.parse(docker("inspect", first.egress.id))[0];
    expect(Object.keys(egress.NetworkSettings.Networks)).toEqual([EGRESS_NETWORK]);
    expect(egress.Config.User).toBe(`${ORCHESTRATOR_UID}:${ORCHESTRATOR_UID}`);
    expect(egress.HostConfig).toMatchObject({ ReadonlyRootfs: true, CapDrop: ["ALL"], Privileged: false });
    expect(
      (egress.Config.Env as string[]).filter((entry) =>
        /^(ANTHROPIC_API_KEY|OPENAI_API_KEY|CODEX_API_KEY|CLAUDE_CODE_OAUTH_TOKEN|AGENTCAGE_TOKEN)=/.test(entry),
      ),
    ).toEqual([]);
  });

  it("runs each agent on an internal network of its Run's own, where only the egress proxy answers", async () => {
    // A Run whose model never answers, so that its agent container lives long enough to be looked at.
    const { id } = (await api("/v1/runs", { cli: "claude", prompt: "[stand-in:hang] wait" })) as RunView;
    let agent = "";
    const deadline = Date.now() + RUN_WITHIN_MS;
    while (agent === "") {
      // The Run's agent, by its name (agentcage-<runId>): the container holding its out/ volume runs the same image.
      const listed = docker(
        "ps",
        "--filter",
        `label=agentcage.host=${first.orchestrator.hostname}`,
        "--filter",
        `ancestor=${AGENT_IMAGE}`,
        "--format",
        "{{.ID}} {{.Names}}",
      ).split("\n");
      agent = listed.find((line) => /^\S+ agentcage-[0-9a-f]{16}$/.test(line))?.split(" ")[0] ?? "";
      if (agent === "" && Date.now() > deadline) throw new Error(`no agent container of Run ${id} appeared within ${RUN_WITHIN_MS} ms`);
      if (agent === "") await sleep(200);
    }
    const inspected = JSON.parse(docker("inspect", agent))[0];
    for (const mount of inspected.Mounts as Array<{ Source: string; Destination: string; Type: string }>) {
      expect(mount.Destination).not.toBe(SOCKET);
      expect(mount.Source).not.toContain("docker.sock");
      if (mount.Type === "bind") expect(mount.Source.startsWith(`${runtimeDir}/staging/`)).toBe(true);
    }
    // Its out/ and its session store (compose keeps sessions) are bounded volumes of the Run's own
    // (the orchestrator cannot mount a tmpfs), not the disk.
    const volumes = (inspected.Mounts as Array<{ Type: string; Name?: string; Destination: string }>).filter((m) => m.Type === "volume");
    const runId = inspected.Config.Labels["agentcage.run"] as string;
    expect(volumes.map((v) => v.Name).sort()).toEqual([`agentcage-out-${runId}`, `agentcage-session-${runId}`]);
    expect(volumes.find((v) => v.Name === `agentcage-out-${runId}`)?.Destination).toMatch(/\/out$/);
    const joined = Object.keys(inspected.NetworkSettings.Networks ?? {});
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatch(/^agentcage-net-[0-9a-f]{16}$/);
    const runNetwork = JSON.parse(docker("network", "inspect", joined[0] as string))[0];
    expect(runNetwork.Internal).toBe(true);
    // Its members: the agent and the egress proxy, nothing else.
    expect(
      Object.values(runNetwork.Containers as Record<string, { Name: string }>)
        .map((c) => c.Name)
        .sort(),
    ).toEqual([inspected.Name.replace(/^\//, ""), first.egress.name].sort());
    // The agent holds a token for its Run, not the key the proxy sends upstream.
    const env = inspected.Config.Env as string[];
    expect(env.find((entry) => entry.startsWith("ANTHROPIC_API_KEY="))).toMatch(/^ANTHROPIC_API_KEY=agentcage-run-/);
    expect(env.find((entry) => entry.startsWith("ANTHROPIC_BASE_URL="))).toBe("ANTHROPIC_BASE_URL=http://egress:8751");

    const egressOut = docker("inspect", "--format", `{{(index .NetworkSettings.Networks "${EGRESS_NETWORK}").IPAddress}}`, first.egress.id);
    const gateway = runNetwork.IPAM.Config[0].Gateway as string;
    const targets = [
      "egress:8751",
      `${first.orchestrator.address}:8750`,
      `127.0.0.1:${first.port}`,
      `${gateway}:${first.port}`,
      `${egressOut}:8751`,
      "169.254.169.254:80",
    ];
    const said = docker("exec", agent, "bash", "-c", PROBE, "probe", ...targets).split("\n");
    expect(said).toEqual(["socket absent", "egress:8751 reached", ...targets.slice(1).map((target) => `${target} unreachable`)]);
    // The same probe on the orchestrator's own network does reach it: what failed above is the network, not the probe.
    expect(probeIn(API_NETWORK, `${first.orchestrator.address}:8750`)).toEqual(["socket absent", `${first.orchestrator.address}:8750 reached`]);

    await api(`/v1/runs/${id}/cancel`, {});
    expect((await untilRun(id, (run) => run.state !== "running" && run.state !== "starting" && run.state !== "queued")).state).toBe("cancelled");
    expect(docker("ps", "--all", "--quiet", "--filter", `id=${agent}`)).toBe("");
    expect(docker("network", "ls", "--quiet", "--filter", `name=^${joined[0] as string}$`)).toBe("");
  }, 90_000);

  it("has the egress proxy log one line per model call, with no key or token in it", () => {
    const logs = compose("logs", "--no-color", "egress");
    expect(logs).toMatch(/"path":"\/v1\/messages"/);
    expect(logs).not.toMatch(/agentcage-run-[A-Za-z0-9_-]{20,}/);
    expect(logs).not.toContain("sk-stand-in-made-up-key");
  });

  it("bounds what an agent writes: one that writes past AGENTCAGE_WRITABLE_BYTES ends write_limit", async () => {
    const flood = `head -c ${4 * WRITABLE_BYTES} /dev/zero > out/flood.bin`;
    const { id } = (await api("/v1/runs", { cli: "claude", prompt: `[stand-in:tool_write_bash] [stand-in-bash:${flood}] write a lot` })) as RunView;
    const run = await untilRun(id, (r) => r.outcome !== undefined);
    expect(run.outcome).toMatchObject({ ok: false, reason: "write_limit" });
    expect(run.outcome?.error).toContain(`${WRITABLE_BYTES} bytes (staging.writableBytes)`);
    // Its volume and the container that held it went with the Run.
    expect(docker("volume", "ls", "--quiet", "--filter", `label=agentcage.host=${first.orchestrator.hostname}`)).toBe("");
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.host=${first.orchestrator.hostname}`)).toBe("");
  }, 120_000);

  it("runs beside a second deployment on the same engine, each Run through its own project's egress proxy", async () => {
    expect(second.egress.id).not.toBe(first.egress.id);
    // Compose names each after its project (v1: <project>_egress_1, v2: <project>-egress-1).
    expect(first.egress.name).toMatch(new RegExp(`^${PROJECT}[_-]egress[_-]1$`));
    expect(second.egress.name).toMatch(new RegExp(`^${SECOND_PROJECT}[_-]egress[_-]1$`));
    const registered = (of: Deployment) =>
      docker("logs", of.egress.id)
        .split("\n")
        .filter((line) => line.includes('"msg":"egress run registered"')).length;
    const before = [registered(first), registered(second)];
    const submitted = await Promise.all(
      [first, second].map(async (to) => ({
        to,
        id: ((await api("/v1/runs", { cli: "claude", prompt: `What is the capital of France? (${to.project})` }, to)) as RunView).id,
      })),
    );
    const ended = await Promise.all(submitted.map(({ to, id }) => untilRun(id, (run) => run.outcome !== undefined, to)));
    for (const run of ended) expect(run.outcome).toMatchObject({ ok: true, reason: "completed" });
    for (const run of ended) expect(run.outcome?.result?.text).toContain("Paris");
    // Each proxy registered one Run: had both gone through one proxy, it would have two and the other none.
    expect([registered(first) - (before[0] as number), registered(second) - (before[1] as number)]).toEqual([1, 1]);
  }, 120_000);

  it("runs on the engines AGENTCAGE_ENGINES names with compose.engines.yaml, through an egress proxy its orchestrator started there", async () => {
    const metrics = await fetch(`${onEngines.base}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    expect(await metrics.text()).toMatch(/^agentcage_engine_up\{engine="here"\} 1$/m);
    const { id } = (await api("/v1/runs", { cli: "claude", prompt: "What is the capital of France?" }, onEngines)) as RunView;
    const run = await untilRun(id, (r) => r.outcome !== undefined, onEngines);
    expect(run.outcome).toMatchObject({ ok: true, reason: "completed" });
    expect(run.outcome?.result?.text).toContain("Paris");
    // Not through the compose egress service: it registered nothing. Through the proxy serve started on "here",
    // a container owned by the orchestrator (its host label), which serve stops on its way down.
    expect(docker("logs", onEngines.egress.id)).not.toContain('"msg":"egress run registered"');
    const started = docker(
      "ps",
      "--quiet",
      "--filter",
      `label=agentcage.host=${onEngines.orchestrator.hostname}`,
      "--filter",
      "label=agentcage.owner=agentcage-egress",
    );
    expect(started.split("\n").filter((line) => line !== "")).toHaveLength(1);
  }, 120_000);

  it("is taken down leaving no container, network or volume behind, and the other deployments' the same", () => {
    for (const of of everyDeployment) {
      tearDown(of);
      expect(leftovers(of)).toEqual({ containers: [], networks: [], volumes: [] });
    }
  }, 240_000);
});
