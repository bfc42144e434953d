// commandFor is the seam where argument order is pinned: each test asserts the whole word list
// for one kind of declaration, with the run id read back from `--name` and checked in its label.

import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import type { MountTable } from "../mounts/index.js";
import type { RunPlanFunction } from "../plan/index.js";
import { createAgentContainerRuntime, type AgentContainer } from "../index.js";
import { REDACTED } from "../subpaths/runtime.js";

const PLAN_ARGS = ["sample-agent", "--json"] as const;
const plan: RunPlanFunction = () => ({ args: PLAN_ARGS, stdin: "hello", outcome: async () => ({ ok: true }) });
const silent = pino({ level: "silent" });

/** The user an undeclared agent runs as, decided the way the runtime decides it. */
const uid = process.getuid?.();
const gid = process.getgid?.();
const AGENT_USER = uid === undefined || gid === undefined || uid === 0 ? "10002:10002" : `${uid}:${gid}`;

const OWNERSHIP_LABEL = /^agentcage\.(session|host|pid|pid-start|deadline)=/;

/** The words without the ownership labels (whose values change from process to process); their test is below. */
function withoutOwnership<T extends { readonly args: readonly string[]; readonly redactedArgs: readonly string[] }>(command: T): T {
  const strip = (args: readonly string[]) =>
    args.filter((word, i) => !OWNERSHIP_LABEL.test(word) && !(word === "--label" && OWNERSHIP_LABEL.test(args[i + 1] ?? "")));
  return { ...command, args: strip(command.args), redactedArgs: strip(command.redactedArgs) };
}

function commandFor(container: AgentContainer) {
  return withoutOwnership(createAgentContainerRuntime({ container: { logger: silent, ...container }, run: plan }).commandFor({ text: "hello" }));
}

describe("commandFor's ownership labels", () => {
  it("name the runtime's session, this host, this pid and its start time, and a deadline past the timeout, before the run label", () => {
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, timeoutSeconds: 60 }, run: plan });
    const { args } = runtime.commandFor({ text: "hello" });
    const labels = args.filter((_word, i) => args[i - 1] === "--label");
    const value = (key: string) => labels.find((label) => label.startsWith(`agentcage.${key}=`))?.slice(`agentcage.${key}=`.length);
    expect(value("session")).toBe(runtime.session);
    expect(value("pid")).toBe(String(process.pid));
    expect(value("host")).not.toBe("");
    expect(Number(value("deadline"))).toBeGreaterThan(Date.now() + 59_000);
    expect(labels.findIndex((label) => OWNERSHIP_LABEL.test(label))).toBeLessThan(labels.findIndex((label) => label.startsWith("agentcage.run=")));
  });
});

/** The fixed lockdown words every command opens with, for the default limits. */
const LOCKED_DOWN = [
  "run",
  "--rm",
  "--interactive",
  "--init",
  "--cap-drop",
  "ALL",
  "--security-opt",
  "no-new-privileges",
  "--read-only",
  "--tmpfs",
  "/tmp:rw,nosuid,nodev,size=268435456,mode=1777",
  "--pids-limit",
  "256",
  "--memory",
  "2147483648",
  "--memory-swap",
  "2147483648",
  "--ulimit",
  "core=0",
  "--log-driver",
  "none",
  "--stop-timeout",
  "10",
] as const;

/**
 * The Run's own timer, in front of the agent's words: the stop signal a margin (1 s) after the
 * default timeout of 3600 s, SIGKILL the default grace of 10 s later.
 */
const TIMER = ["timeout", "-s", "TERM", "-k", "10", "3601"] as const;
const TIMER_ARGS = TIMER.slice(1);

/** The run id a command names its container after. */
function runIdOf(args: readonly string[]): string {
  const name = args[args.indexOf("--name") + 1] ?? "";
  expect(name).toMatch(/^agentcage-[0-9a-f]{16}$/);
  return name.slice("agentcage-".length);
}

describe("commandFor", () => {
  it("renders the locked-down defaults for an image alone", () => {
    const command = commandFor({ image: "agent:1" });
    const id = runIdOf(command.args);
    const args = [
      "run",
      "--rm",
      "--interactive",
      "--init",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "--read-only",
      "--tmpfs",
      "/tmp:rw,nosuid,nodev,size=268435456,mode=1777",
      "--pids-limit",
      "256",
      "--memory",
      "2147483648",
      "--memory-swap",
      "2147483648",
      "--ulimit",
      "core=0",
      "--log-driver",
      "none",
      "--stop-timeout",
      "10",
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ];
    expect(command).toEqual({ command: "docker", args, redactedArgs: args, env: {}, stdin: "hello" });
  });

  it("carries the same 16-hex-digit run id in the name and the run label", () => {
    const { args } = commandFor({ image: "agent:1" });
    const id = runIdOf(args);
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(args.filter((w) => w.startsWith("agentcage.run="))).toEqual([`agentcage.run=${id}`]);
  });

  it("names a fresh run id on every call", () => {
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run: plan });
    const first = runIdOf(runtime.commandFor({ text: "a" }).args);
    const second = runIdOf(runtime.commandFor({ text: "b" }).args);
    expect(first).not.toBe(second);
  });

  it("binds each Mount Table entry with --mount, in order, before the user", () => {
    const mounts: MountTable = {
      runtimeDir: "/srv/agentcage/run-1",
      entries: [
        { agentPath: "/work", path: "work" },
        { agentPath: "/in/config.json", path: "config.json", readOnly: true },
      ],
    };
    const { args } = commandFor({ image: "agent:1", mounts });
    const id = runIdOf(args);
    expect(args).toEqual([
      "run",
      "--rm",
      "--interactive",
      "--init",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "--read-only",
      "--tmpfs",
      "/tmp:rw,nosuid,nodev,size=268435456,mode=1777",
      "--pids-limit",
      "256",
      "--memory",
      "2147483648",
      "--memory-swap",
      "2147483648",
      "--ulimit",
      "core=0",
      "--log-driver",
      "none",
      "--stop-timeout",
      "10",
      "--mount",
      "type=bind,source=/srv/agentcage/run-1/work,target=/work",
      "--mount",
      "type=bind,source=/srv/agentcage/run-1/config.json,target=/in/config.json,readonly",
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
  });

  it("splits a several-word entrypoint around the image, before the plan's words", () => {
    const { args } = commandFor({ image: "agent:1", entrypoint: ["node", "/opt/agent.js", "--stream"] });
    const id = runIdOf(args);
    expect(args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      // The Run's own timer first: the declared entrypoint runs under it.
      "--entrypoint",
      "timeout",
      "agent:1",
      ...TIMER_ARGS,
      "node",
      "/opt/agent.js",
      "--stream",
      "sample-agent",
      "--json",
    ]);
  });

  it("joins every declared network instead of none", () => {
    const { args } = commandFor({ image: "agent:1", networks: ["agents", "egress-proxy"] });
    const id = runIdOf(args);
    expect(args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "agents",
      "--network",
      "egress-proxy",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
  });

  it("names env variables in args and hands their values over separately", () => {
    const command = commandFor({ image: "agent:1", env: { API_KEY: "sk-live-0123456789", MODE: "fast-mode" } });
    const id = runIdOf(command.args);
    expect(command.args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--env",
      "API_KEY",
      "--env",
      "MODE",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
    expect(command.env).toEqual({ API_KEY: "sk-live-0123456789", MODE: "fast-mode" });
  });

  it("puts declared labels before the run and owner labels", () => {
    const { args } = commandFor({ image: "agent:1", labels: { team: "infra", "com.example.tier": "gold" } });
    const id = runIdOf(args);
    expect(args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      "team=infra",
      "--label",
      "com.example.tier=gold",
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
  });

  it("names the declared owner in the owner label", () => {
    const { args } = commandFor({ image: "agent:1", owner: "ci-runner-1" });
    const id = runIdOf(args);
    expect(args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=ci-runner-1",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
  });

  it("splices extraArgs last, after the entrypoint and before the image", () => {
    const extraArgs = ["--hostname", "agent-1", "-e", "EXTRA=extra-1", "--label", "tier=gold", "--dns", "10.0.0.2"];
    const { args } = commandFor({ image: "agent:1", entrypoint: ["node", "/opt/agent.js"], extraArgs });
    const id = runIdOf(args);
    expect(args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "--entrypoint",
      "timeout",
      // The env assignment keeps its place but loses its value, which moves to the client's env.
      "--hostname",
      "agent-1",
      "--env",
      "EXTRA",
      "--label",
      "tier=gold",
      "--dns",
      "10.0.0.2",
      "agent:1",
      ...TIMER_ARGS,
      "node",
      "/opt/agent.js",
      "sample-agent",
      "--json",
    ]);
  });

  it("renders every declared limit", () => {
    const { args } = commandFor({
      image: "agent:1",
      limits: { memoryBytes: 512 * 1024 * 1024, cpus: 1.5, pids: 64, tmpfsBytes: 16 * 1024 * 1024, stopGraceSeconds: 5 },
    });
    const id = runIdOf(args);
    expect(args).toEqual([
      "run",
      "--rm",
      "--interactive",
      "--init",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "--read-only",
      "--tmpfs",
      "/tmp:rw,nosuid,nodev,size=16777216,mode=1777",
      "--pids-limit",
      "64",
      "--memory",
      "536870912",
      "--memory-swap",
      "536870912",
      "--cpus",
      "1.5",
      "--ulimit",
      "core=0",
      "--log-driver",
      "none",
      "--stop-timeout",
      "5",
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      "timeout",
      "-s",
      "TERM",
      "-k",
      "5",
      "3601",
      "sample-agent",
      "--json",
    ]);
  });

  it("renders the declared user and workdir", () => {
    const { args } = commandFor({ image: "agent:1", user: "agent", workdir: "/work" });
    const id = runIdOf(args);
    expect(args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      "agent",
      "--workdir",
      "/work",
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
  });

  it("names podman as the client when asked", () => {
    const command = commandFor({ image: "agent:1", containerCommand: ["podman"] });
    const id = runIdOf(command.args);
    expect(command.command).toBe("podman");
    expect(command.args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ]);
  });

  it("puts the further words of a multi-word client before run", () => {
    const command = commandFor({ image: "agent:1", containerCommand: ["sudo", "docker"] });
    const id = runIdOf(command.args);
    const args = [
      "docker",
      "run",
      "--rm",
      "--interactive",
      "--init",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      "--read-only",
      "--tmpfs",
      "/tmp:rw,nosuid,nodev,size=268435456,mode=1777",
      "--pids-limit",
      "256",
      "--memory",
      "2147483648",
      "--memory-swap",
      "2147483648",
      "--ulimit",
      "core=0",
      "--log-driver",
      "none",
      "--stop-timeout",
      "10",
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      "sample-agent",
      "--json",
    ];
    expect(command).toEqual({ command: "sudo", args, redactedArgs: args, env: {}, stdin: "hello" });
  });
});

describe("the Run's own timer", () => {
  const afterImage = (args: readonly string[]) => args.slice(args.indexOf("agent:1") + 1);

  it("sends the stop signal a margin after the declared timeout, and SIGKILL a grace later", () => {
    const { args } = commandFor({ image: "agent:1", timeoutSeconds: 60, limits: { stopGraceSeconds: 3 } });
    expect(afterImage(args)).toEqual(["timeout", "-s", "TERM", "-k", "3", "61", ...PLAN_ARGS]);
    expect(args.slice(args.indexOf("--stop-timeout"), args.indexOf("--stop-timeout") + 2)).toEqual(["--stop-timeout", "3"]);
  });

  it("sends SIGKILL at once when the grace is 0, as a stop with no grace does", () => {
    const { args } = commandFor({ image: "agent:1", timeoutSeconds: 60, limits: { stopGraceSeconds: 0 } });
    expect(afterImage(args)).toEqual(["timeout", "-s", "KILL", "61", ...PLAN_ARGS]);
  });

  it("sends the declared stop signal, in the words both coreutils' and busybox's timeout take", () => {
    const { args } = commandFor({ image: "agent:1", timeoutSeconds: 60, extraArgs: ["--stop-signal", "sigquit"] });
    expect(afterImage(args)).toEqual(["timeout", "-s", "QUIT", "-k", "10", "61", ...PLAN_ARGS]);
  });
});

describe("the Run Plan function", () => {
  it("is not called at construction", () => {
    const run = vi.fn(plan);
    createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run });
    expect(run).not.toHaveBeenCalled();
  });

  it("is called exactly once per commandFor, with its prompt", () => {
    const run = vi.fn(plan);
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run });
    const first = runtime.commandFor({ text: "first" });
    expect(run.mock.calls.map(([prompt]) => prompt)).toEqual([{ text: "first" }]);
    runtime.commandFor({ text: "second", session: "s-1" });
    expect(run.mock.calls.map(([prompt]) => prompt)).toEqual([{ text: "first" }, { text: "second", session: "s-1" }]);
    // Each call is told the run id the command names.
    expect(first.args).toContain(`agentcage-${run.mock.calls[0]?.[1].runId}`);
  });

  it("answers the stdin commandFor returns", () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent },
      run: () => ({ args: [], stdin: bytes, outcome: async () => ({ ok: true }) }),
    });
    expect(runtime.commandFor({ text: "x" }).stdin).toBe(bytes);
  });
});

describe("commandFor with public and per-Run environment", () => {
  it("writes publicEnv as NAME=value, declared and per-Run env as --env NAME with values only in .env", () => {
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, publicEnv: { LANG: "C.UTF-8" }, env: { DECLARED: "declared-secret" } },
      run: plan,
    });
    const command = withoutOwnership(runtime.commandFor({ text: "hello" }, { env: { RUN_TOKEN: "per-run-secret-1" } }));
    const id = runIdOf(command.args);
    expect(command.args).toEqual([
      ...LOCKED_DOWN,
      "--user",
      AGENT_USER,
      "--network",
      "none",
      "--env",
      "LANG=C.UTF-8",
      "--env",
      "DECLARED",
      "--env",
      "RUN_TOKEN",
      "--name",
      `agentcage-${id}`,
      "--label",
      `agentcage.run=${id}`,
      "--label",
      "agentcage.owner=agentcage",
      "agent:1",
      ...TIMER,
      ...PLAN_ARGS,
    ]);
    expect(command.env).toEqual({ DECLARED: "declared-secret", RUN_TOKEN: "per-run-secret-1" });
  });

  it("refuses a name in both env and publicEnv", () => {
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, publicEnv: { A: "1" }, env: { A: "2" } }, run: plan })).toThrow(
      '"A" is in both env and publicEnv',
    );
  });

  it("refuses a per-Run env name that is not POSIX, without quoting values", () => {
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run: plan });
    expect(() => runtime.commandFor({ text: "" }, { env: { "BAD-NAME": "value-123456" } })).toThrow('env name "BAD-NAME" is not a POSIX name');
  });
});

/** The words from the first extraArgs word up to the image, where extraArgs are spliced. */
function extraWords(args: readonly string[], image: string): string[] {
  const afterLabels = args.lastIndexOf("agentcage.owner=agentcage") + 1;
  return args.slice(afterLabels, args.lastIndexOf(image));
}

describe("commandFor and secrets", () => {
  const extraArgs = ["-e", "A=alpha-secret", "--env", "B=beta-secret", "--env=C=gamma-secret", "-eD=delta-secret"];

  it("carries values smuggled through extraArgs, in every form, only in the client's env", () => {
    const command = commandFor({ image: "agent:1", extraArgs });
    expect(extraWords(command.args, "agent:1")).toEqual(["--env", "A", "--env", "B", "--env", "C", "--env", "D"]);
    expect(extraWords(command.redactedArgs, "agent:1")).toEqual(["--env", "A", "--env", "B", "--env", "C", "--env", "D"]);
    expect(command.env).toEqual({ A: "alpha-secret", B: "beta-secret", C: "gamma-secret", D: "delta-secret" });
  });

  it("masks a secret a plan passes as an argument in redactedArgs, and only there", () => {
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, env: { API_KEY: "sk-live-0123456789abcdef" } },
      run: () => ({ args: ["--key", "sk-live-0123456789abcdef"], stdin: "", outcome: async () => ({ ok: true }) }),
    });
    const command = runtime.commandFor({ text: "" });
    expect(command.args.at(-1)).toBe("sk-live-0123456789abcdef");
    expect(command.redactedArgs.at(-1)).toBe(REDACTED);
  });

  it("never carries a declared env value, in args or redactedArgs", () => {
    const env = { API_KEY: "sk-live-0123456789abcdef", OTHER_TOKEN: "tok-fedcba9876543210" };
    const command = commandFor({ image: "agent:1", env, extraArgs: ["-e", "MODE=fast-mode"] });
    for (const words of [command.args, command.redactedArgs]) {
      const text = JSON.stringify(words);
      expect(text).not.toContain("sk-live-0123456789abcdef");
      expect(text).not.toContain("tok-fedcba9876543210");
    }
    expect(command.env).toEqual({ ...env, MODE: "fast-mode" });
  });

  it("hides an env value even when the entrypoint word before extraArgs is --env", () => {
    const { args } = commandFor({ image: "agent:1", entrypoint: ["--env"], extraArgs: ["-e", "TOKEN=supersecret"] });
    expect(JSON.stringify(args)).not.toContain("supersecret");
  });
});
