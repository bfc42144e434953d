// One spec, two renderings: the Engine API create body must mean what the `docker run` words
// mean. The words are read back here by a small reader of docker's flag syntax and compared
// field by field with the body, for the defaults and for a declaration that uses everything.

import type { ContainerCreateOptions } from "dockerode";
import { describe, expect, it } from "vitest";
import { type AgentContainer, validateAgentContainer } from "./agent-container.js";
import { composeSpec, resolveAgentUser } from "./compose.js";
import { renderCreateBody } from "./render-api.js";
import { createMasker } from "../redact/index.js";
import { renderCommand, type ComposedCommand } from "./render-cli.js";

const RUN_ID = "0123456789abcdef";
const PLAN_ARGS = ["sample-agent", "--json"];
/** The container's own timer, as every Run's container has one. */
const DEADLINE_SECONDS = 61;

const FULL: AgentContainer = {
  image: "agent:1",
  mounts: {
    runtimeDir: "/srv/agentcage/run-1",
    entries: [
      { agentPath: "/work", path: "work" },
      { agentPath: "/in/config.json", path: "config.json", readOnly: true },
    ],
  },
  entrypoint: ["node", "/opt/agent.js", "--stream"],
  networks: ["agents", "egress-proxy"],
  env: { API_KEY: "sk-live-0123456789", MODE: "fast-mode" },
  user: "10002:10002",
  workdir: "/work",
  limits: { memoryBytes: 512 * 1024 * 1024, cpus: 1.5, pids: 64, tmpfsBytes: 16 * 1024 * 1024, stopGraceSeconds: 5 },
  labels: { team: "infra" },
  owner: "ci-runner-1",
  containerRuntime: "runsc",
  extraArgs: [
    "-e",
    "MODE=slow-mode",
    "--env=EXTRA=extra-1",
    "-eOTHER=other-2",
    "--label",
    "tier=gold",
    "--workdir",
    "/work/sub",
    "-h",
    "agent-1",
    "--add-host",
    "db:10.0.0.3",
    "--dns",
    "10.0.0.2",
    "--stop-signal",
    "SIGINT",
  ],
};

function render(container: AgentContainer): { body: ContainerCreateOptions; command: ComposedCommand } {
  const spec = composeSpec(validateAgentContainer(container), { runId: RUN_ID, planArgs: PLAN_ARGS, deadlineSeconds: DEADLINE_SECONDS });
  return { body: renderCreateBody(spec), command: renderCommand(spec, "", createMasker()) };
}

const BOOLEAN_FLAGS = new Set(["--rm", "--interactive", "--init", "--read-only"]);
const SHORT_FLAGS: Record<string, string> = { "-e": "--env", "-l": "--label", "-w": "--workdir", "-h": "--hostname" };

type CliReading = {
  readonly flags: ReadonlyMap<string, readonly string[]>;
  readonly image: string;
  readonly afterImage: readonly string[];
};

/** Reads `run` words the way docker's flag parser would: flags with their values, the image, the rest. */
function readCli(args: readonly string[]): CliReading {
  expect(args[0]).toBe("run");
  const flags = new Map<string, string[]>();
  const add = (flag: string, value: string): void => {
    flags.set(flag, [...(flags.get(flag) ?? []), value]);
  };
  let i = 1;
  for (; i < args.length; i++) {
    const word = args[i] as string;
    if (!word.startsWith("-")) break;
    if (BOOLEAN_FLAGS.has(word)) {
      add(word, "true");
    } else if (word.startsWith("--") && word.includes("=")) {
      add(word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1));
    } else if (!word.startsWith("--") && word.length > 2) {
      add(SHORT_FLAGS[word.slice(0, 2)] ?? word.slice(0, 2), word.slice(2));
    } else {
      add(SHORT_FLAGS[word] ?? word, args[++i] as string);
    }
  }
  return { flags, image: args[i] as string, afterImage: args.slice(i + 1) };
}

const all = (cli: CliReading, flag: string): readonly string[] => cli.flags.get(flag) ?? [];
const last = (cli: CliReading, flag: string): string | undefined => all(cli, flag).at(-1);

/** NAME=value pairs, later names winning; a bare NAME takes its value from the client's environment. */
function cliEnv(cli: CliReading, clientEnv: Readonly<Record<string, string>>): Map<string, string> {
  return new Map(
    all(cli, "--env").map((entry) => {
      const eq = entry.indexOf("=");
      return eq === -1 ? [entry, clientEnv[entry] ?? ""] : [entry.slice(0, eq), entry.slice(eq + 1)];
    }),
  );
}

function cliMounts(cli: CliReading): unknown[] {
  return all(cli, "--mount").map((value) => {
    const fields = value.split(",");
    const field = (key: string): string | undefined => fields.find((f) => f.startsWith(`${key}=`))?.slice(key.length + 1);
    return { Type: field("type"), Source: field("source"), Target: field("target"), ReadOnly: fields.includes("readonly") };
  });
}

describe.each([
  ["the defaults", { image: "agent:1" } as AgentContainer],
  ["a declaration that uses every field", FULL],
])("the Engine API body for %s agrees with the CLI words on", (_what, container) => {
  const { body, command } = render(container);
  const cli = readCli(command.args);
  const host = body.HostConfig ?? {};

  it("the image and the name", () => {
    expect([body.Image, body.name]).toEqual([cli.image, last(cli, "--name")]);
  });

  it("Init, CapDrop, SecurityOpt and ReadonlyRootfs", () => {
    expect({ Init: host.Init, CapDrop: host.CapDrop, SecurityOpt: host.SecurityOpt, ReadonlyRootfs: host.ReadonlyRootfs }).toEqual({
      Init: last(cli, "--init") === "true",
      CapDrop: all(cli, "--cap-drop"),
      SecurityOpt: all(cli, "--security-opt"),
      ReadonlyRootfs: last(cli, "--read-only") === "true",
    });
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(host.SecurityOpt).toEqual(["no-new-privileges"]);
  });

  it("the container runtime", () => {
    expect(host.Runtime).toBe(last(cli, "--runtime"));
  });

  it("Tmpfs", () => {
    const [path, options] = (last(cli, "--tmpfs") ?? "").split(/:(.*)/);
    expect(host.Tmpfs).toEqual({ [path as string]: options });
  });

  it("PidsLimit, Memory, MemorySwap and NanoCpus", () => {
    const cpus = last(cli, "--cpus");
    expect({ PidsLimit: host.PidsLimit, Memory: host.Memory, MemorySwap: host.MemorySwap, NanoCpus: host.NanoCpus }).toEqual({
      PidsLimit: Number(last(cli, "--pids-limit")),
      Memory: Number(last(cli, "--memory")),
      MemorySwap: Number(last(cli, "--memory-swap")),
      NanoCpus: cpus === undefined ? undefined : Math.round(Number(cpus) * 1e9),
    });
  });

  it("Ulimits", () => {
    expect(all(cli, "--ulimit")).toEqual(["core=0"]);
    expect(host.Ulimits).toEqual([{ Name: "core", Soft: 0, Hard: 0 }]);
  });

  it("Mounts, all of type bind", () => {
    expect(host.Mounts).toEqual(cliMounts(cli));
  });

  it("NetworkMode, the first network", () => {
    expect(host.NetworkMode).toBe(all(cli, "--network")[0]);
  });

  it("User and WorkingDir", () => {
    expect({ User: body.User, WorkingDir: body.WorkingDir }).toEqual({ User: last(cli, "--user"), WorkingDir: last(cli, "--workdir") });
  });

  it("the Entrypoint and Cmd split", () => {
    const entry = last(cli, "--entrypoint");
    expect({ Entrypoint: body.Entrypoint, Cmd: body.Cmd }).toEqual({
      Entrypoint: entry === undefined ? undefined : [entry],
      Cmd: cli.afterImage,
    });
  });

  it("Env, with values, later names winning", () => {
    expect(new Set(body.Env)).toEqual(new Set([...cliEnv(cli, command.env)].map(([k, v]) => `${k}=${v}`)));
  });

  it("Labels, later names winning", () => {
    const labels = Object.fromEntries(all(cli, "--label").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    expect(body.Labels).toEqual(labels);
  });

  it("Hostname, StopSignal, ExtraHosts and Dns", () => {
    const list = (flag: string): readonly string[] | undefined => (all(cli, flag).length === 0 ? undefined : all(cli, flag));
    expect({ Hostname: body.Hostname, StopSignal: body.StopSignal, ExtraHosts: host.ExtraHosts, Dns: host.Dns }).toEqual({
      Hostname: last(cli, "--hostname"),
      StopSignal: last(cli, "--stop-signal"),
      ExtraHosts: list("--add-host"),
      Dns: list("--dns"),
    });
  });

  it("StopTimeout, the grace", () => {
    expect(body.StopTimeout).toBe(Number(last(cli, "--stop-timeout")));
  });

  it("stdin open without a TTY, attached once", () => {
    expect(last(cli, "--interactive")).toBe("true");
    expect(cli.flags.has("--tty")).toBe(false);
    expect({ Tty: body.Tty, OpenStdin: body.OpenStdin, StdinOnce: body.StdinOnce }).toEqual({ Tty: false, OpenStdin: true, StdinOnce: true });
  });
});

describe("renderCreateBody", () => {
  it("renders the whole body for the defaults", () => {
    expect(render({ image: "agent:1" }).body).toEqual({
      name: `agentcage-${RUN_ID}`,
      Image: "agent:1",
      // The timer runs under the image's own entrypoint, in front of the plan's words.
      Cmd: ["timeout", "-s", "TERM", "-k", "10", "61", "sample-agent", "--json"],
      User: resolveAgentUser(undefined),
      StopTimeout: 10,
      Env: [],
      Labels: { "agentcage.run": RUN_ID, "agentcage.owner": "agentcage" },
      Tty: false,
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      NetworkDisabled: false,
      HostConfig: {
        AutoRemove: false,
        Init: true,
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        ReadonlyRootfs: true,
        Tmpfs: { "/tmp": "rw,nosuid,nodev,size=268435456,mode=1777" },
        PidsLimit: 256,
        Memory: 2147483648,
        MemorySwap: 2147483648,
        Ulimits: [{ Name: "core", Soft: 0, Hard: 0 }],
        LogConfig: { Type: "none", Config: {} },
        Mounts: [],
        NetworkMode: "none",
      },
    });
  });

  it("renders the whole body for a declaration that uses every field", () => {
    expect(render(FULL).body).toEqual({
      name: `agentcage-${RUN_ID}`,
      Image: "agent:1",
      // The timer replaces the entrypoint, and runs the declared one: the stop signal is extraArgs' SIGINT.
      Entrypoint: ["timeout"],
      Cmd: ["-s", "INT", "-k", "5", "61", "node", "/opt/agent.js", "--stream", "sample-agent", "--json"],
      User: "10002:10002",
      WorkingDir: "/work/sub",
      Hostname: "agent-1",
      StopSignal: "SIGINT",
      StopTimeout: 5,
      Env: ["API_KEY=sk-live-0123456789", "MODE=slow-mode", "EXTRA=extra-1", "OTHER=other-2"],
      Labels: { team: "infra", tier: "gold", "agentcage.run": RUN_ID, "agentcage.owner": "ci-runner-1" },
      Tty: false,
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      NetworkDisabled: false,
      HostConfig: {
        AutoRemove: false,
        Init: true,
        Runtime: "runsc",
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        ReadonlyRootfs: true,
        Tmpfs: { "/tmp": "rw,nosuid,nodev,size=16777216,mode=1777" },
        PidsLimit: 64,
        Memory: 536870912,
        MemorySwap: 536870912,
        NanoCpus: 1_500_000_000,
        Ulimits: [{ Name: "core", Soft: 0, Hard: 0 }],
        LogConfig: { Type: "none", Config: {} },
        Mounts: [
          { Type: "bind", Source: "/srv/agentcage/run-1/work", Target: "/work", ReadOnly: false },
          { Type: "bind", Source: "/srv/agentcage/run-1/config.json", Target: "/in/config.json", ReadOnly: true },
        ],
        NetworkMode: "agents",
        ExtraHosts: ["db:10.0.0.3"],
        Dns: ["10.0.0.2"],
      },
    });
  });
});
