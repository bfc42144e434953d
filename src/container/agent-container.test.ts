// What a declaration may say, decided at construction: every refusal is an AgentContainerError
// that quotes the offending value (never an env value), and the edge values that must pass do.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AgentContainerError, createAgentContainerRuntime, type AgentContainer, type RunPlanFunction, type RuntimeOptions } from "../index.js";

const plan: RunPlanFunction = () => ({ args: [], stdin: "", outcome: async () => ({ ok: true }) });
const silent = pino({ level: "silent" });
const MiB = 1024 * 1024;

/** Constructs a runtime from values the types would refuse, as a JavaScript caller could pass them. */
function construct(container: Record<string, unknown>, options: Record<string, unknown> = {}) {
  return createAgentContainerRuntime({
    container: { logger: silent, ...container } as unknown as AgentContainer,
    run: plan,
    ...options,
  } as RuntimeOptions);
}

/** The error construction throws; fails the test when it does not throw one. */
function refusal(container: Record<string, unknown>, options: Record<string, unknown> = {}): AgentContainerError {
  try {
    construct(container, options);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentContainerError);
    return error as AgentContainerError;
  }
  throw new Error(`construction accepted ${JSON.stringify(container)}`);
}

describe("constructing a runtime", () => {
  describe("refuses an image", () => {
    it.each([
      ["that is empty", "", 'image ""'],
      ["with surrounding space", " agent:1 ", 'image " agent:1 "'],
      ["that starts with a dash", "-agent:1", 'image "-agent:1"'],
    ])("%s", (_what, image, quoted) => {
      expect(refusal({ image }).message).toContain(quoted);
    });
  });

  describe("refuses an env name that is not POSIX", () => {
    it.each([["1A"], ["A-B"]])("%s", (name) => {
      expect(refusal({ image: "agent:1", env: { [name]: "value" } }).message).toContain(
        `env name ${JSON.stringify(name)} is not a POSIX name; use letters, digits and _`,
      );
    });
  });

  it("refuses an env value that is not a string without quoting it", () => {
    const { message } = refusal({ image: "agent:1", env: { API_KEY: 987654321 } });
    expect(message).toContain("env.API_KEY");
    expect(message).toContain("env value is not a string");
    expect(message).not.toContain("987654321");
  });

  describe("refuses an empty word", () => {
    it.each([
      ["in entrypoint", { entrypoint: ["node", ""] }, 'entrypoint word ""'],
      ["with space around it in entrypoint", { entrypoint: [" node"] }, 'entrypoint word " node"'],
      ["in containerCommand", { containerCommand: [""] }, 'containerCommand word ""'],
      ["in networks", { networks: ["agents", ""] }, 'network ""'],
    ])("%s", (_what, field, quoted) => {
      expect(refusal({ image: "agent:1", ...field }).message).toContain(quoted);
    });
  });

  describe("refuses an empty list", () => {
    it.each([["entrypoint"], ["containerCommand"], ["networks"]])("in %s", (field) => {
      const { message } = refusal({ image: "agent:1", [field]: [] });
      expect(message).toContain(`${field}: `);
      expect(message).toContain("is an empty list");
    });
  });

  it("refuses the host network", () => {
    expect(refusal({ image: "agent:1", networks: ["agents", "host"] }).message).toContain('network "host"');
  });

  describe("refuses a limit out of range", () => {
    it.each([
      ["a tiny memoryBytes", { memoryBytes: 1024 }, "limits.memoryBytes 1024"],
      ["a fractional memoryBytes", { memoryBytes: 64 * MiB + 0.5 }, `limits.memoryBytes ${64 * MiB + 0.5}`],
      ["pids 0", { pids: 0 }, "limits.pids 0"],
      ["a fractional pids", { pids: 64.5 }, "limits.pids 64.5"],
      ["tmpfsBytes 0", { tmpfsBytes: 0 }, "limits.tmpfsBytes 0"],
      ["a fractional tmpfsBytes", { tmpfsBytes: MiB + 0.5 }, `limits.tmpfsBytes ${MiB + 0.5}`],
      ["cpus 0", { cpus: 0 }, "limits.cpus 0"],
      ["stopGraceSeconds -1", { stopGraceSeconds: -1 }, "limits.stopGraceSeconds -1"],
      ["a fractional stopGraceSeconds", { stopGraceSeconds: 1.5 }, "limits.stopGraceSeconds 1.5"],
    ])("%s", (_what, limits, quoted) => {
      expect(refusal({ image: "agent:1", limits }).message).toContain(quoted);
    });
  });

  describe("refuses a timeout out of range", () => {
    it.each([[0], [86401], [1.5]])("%s", (timeoutSeconds) => {
      expect(refusal({ image: "agent:1", timeoutSeconds }).message).toContain(`timeoutSeconds ${timeoutSeconds}`);
    });
  });

  describe("refuses uid 0", () => {
    it.each([["0"], ["0:0"], ["root"], ["root:root"], ["000"]])("%s", (user) => {
      expect(refusal({ image: "agent:1", user }).message).toContain(`user ${JSON.stringify(user)} is uid 0`);
    });
  });

  it("refuses an unknown top-level field", () => {
    expect(refusal({ image: "agent:1", timeout: 60 }).message).toContain('field "timeout" is not one an Agent Container takes; send only image,');
  });

  it("refuses a label with the reserved agentcage. prefix", () => {
    expect(refusal({ image: "agent:1", labels: { "agentcage.run": "mine" } }).message).toContain(
      'label "agentcage.run" is empty, holds "=", or uses the reserved "agentcage." prefix',
    );
  });

  it("refuses an extraArgs label with the reserved prefix, so no rendering can forge a Run or owner", () => {
    expect(refusal({ image: "agent:1", extraArgs: ["--label", "agentcage.owner=other"] }).message).toContain(
      'extraArgs label "agentcage.owner" uses the reserved "agentcage." prefix',
    );
  });

  it("refuses a Mount Table whose runtimeDir is relative", () => {
    const { message } = refusal({ image: "agent:1", mounts: { runtimeDir: "relative/dir", entries: [] } });
    expect(message).toContain('runtimeDir "relative/dir" is not absolute');
  });

  it("refuses an extraArgs flag run() cannot mirror", () => {
    expect(refusal({ image: "agent:1", extraArgs: ["--privileged"] }).message).toContain('extraArgs word "--privileged"');
  });

  describe("refuses an extraArgs flag missing its value", () => {
    it.each([["--env"], ["-e"], ["--label"]])("%s", (flag) => {
      expect(refusal({ image: "agent:1", extraArgs: ["--hostname", "agent-1", flag] }).message).toContain(
        `extraArgs flag ${JSON.stringify(flag)} has no value`,
      );
    });
  });

  it("refuses an extraArgs env name that is not POSIX without quoting its value", () => {
    const { message } = refusal({ image: "agent:1", extraArgs: ["-e", "BAD-NAME=value-987654321"] });
    expect(message).toContain('env name "BAD-NAME"');
    expect(message).not.toContain("987654321");
  });

  describe("refuses maxConcurrentRuns out of range", () => {
    it.each([[0], [1.5], [1025]])("%s", (maxConcurrentRuns) => {
      expect(refusal({ image: "agent:1" }, { maxConcurrentRuns }).message).toContain(`maxConcurrentRuns ${maxConcurrentRuns}`);
    });
  });

  it("refuses a run that is not a function", () => {
    expect(refusal({ image: "agent:1" }, { run: "sample-agent" }).message).toContain('run is "string"');
  });

  it("names every problem it found in one message", () => {
    const { message } = refusal({ image: "", user: "root", timeoutSeconds: 0 });
    expect(message).toContain('image ""');
    expect(message).toContain('user "root"');
    expect(message).toContain("timeoutSeconds 0");
  });

  describe("accepts", () => {
    it.each([
      ["a numeric non-root user", { user: "10002:10002" }],
      ["a named user", { user: "agent" }],
      ["a uid with gid 0", { user: "10002:0" }],
      ["the shortest timeout", { timeoutSeconds: 1 }],
      ["the longest timeout", { timeoutSeconds: 86400 }],
      ["limits at their lower bounds", { limits: { memoryBytes: 8 * MiB, cpus: 0.01, pids: 8, tmpfsBytes: MiB, stopGraceSeconds: 0 } }],
      [
        "every supported extraArgs form",
        {
          extraArgs: [
            "--env=A=value-1",
            "-eB=value-2",
            "-e",
            "C=value-3",
            "--label",
            "x=y",
            "-w",
            "/w",
            "-h",
            "h",
            "--add-host",
            "db:10.0.0.3",
            "--dns",
            "10.0.0.2",
            "--stop-signal",
            "SIGINT",
          ],
        },
      ],
    ])("%s", (_what, field) => {
      expect(() => construct({ image: "agent:1", ...field })).not.toThrow();
    });
  });
});

describe("what construction closes off", () => {
  it.each([["-0"], ["-0:10002"], ["0010:-0"]])("refuses user %s, which runc would read as uid 0 or a negative id", (user) => {
    expect(refusal({ image: "agent:1", user }).message).toContain(`user ${JSON.stringify(user)}`);
  });

  it("refuses an env value holding a NUL byte without quoting it", () => {
    const { message } = refusal({ image: "agent:1", env: { TOKEN: "zz-canary-secret\0x" } });
    expect(message).toContain("env.TOKEN: env value holds a NUL byte");
    expect(message).not.toContain("zz-canary-secret");
  });

  it("refuses a label key holding =, which the CLI would split differently", () => {
    expect(refusal({ image: "agent:1", labels: { "a=b": "c" } }).message).toContain('label "a=b" is empty, holds "="');
  });

  it.each([[["none", "bridge"]], [["container:abc", "bridge"]]])("refuses networks %j, where none or container: must stand alone", (networks) => {
    expect(refusal({ image: "agent:1", networks }).message).toContain("either stands alone");
  });

  it("refuses a secret too short to be masked, in env or extraArgs, without quoting it; an empty one passes", () => {
    for (const container of [{ env: { TOKEN: "abc12" } }, { extraArgs: ["-e", "TOKEN=abc12"] }]) {
      const build = () => createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, ...container }, run: plan });
      expect(build).toThrow(/env value of TOKEN is 5 character\(s\), too short to be masked .*belongs in publicEnv/);
      expect(build).not.toThrow(/abc12/);
    }
    expect(() => createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, env: { TOKEN: "" } }, run: plan })).not.toThrow();
  });

  it("keeps its own copy of the declaration, so later changes to the caller's object change nothing", () => {
    const env: Record<string, string> = { TOKEN: "first-secret-value" };
    const mounts = { runtimeDir: "/srv/runs", entries: [{ agentPath: "/work", path: "work" }] };
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent, env, mounts }, run: plan });
    env["TOKEN"] = "rotated-secret-value";
    mounts.entries.push({ agentPath: "relative", path: "x" });
    const command = runtime.commandFor({ text: "" });
    expect(command.env).toEqual({ TOKEN: "first-secret-value" });
    expect(command.args.filter((a) => a === "--mount")).toHaveLength(1);
  });
});

describe("containerRuntime", () => {
  it("takes a runtime's name and refuses anything that is not one, quoting it", async () => {
    const { validateAgentContainer } = await import("./agent-container.js");
    expect(validateAgentContainer({ image: "a", containerRuntime: "runsc" }).containerRuntime).toBe("runsc");
    expect(() => validateAgentContainer({ image: "a", containerRuntime: "--privileged" })).toThrow(AgentContainerError);
    expect(() => validateAgentContainer({ image: "a", containerRuntime: "run sc" })).toThrow('containerRuntime "run sc" is not a runtime name');
  });
});

describe("a retention in days", () => {
  const staging = (extra: Record<string, unknown>) => ({ image: "agent:1", staging: { runtimeDir: "/srv/agentcage", ...extra } });
  it.each([
    ["0", 0, "0"],
    ["a negative", -3, "-3"],
    ["a fraction", 1.5, "1.5"],
    ["a string from an environment", "30", '"30"'],
    ["NaN", Number.NaN, "NaN"],
    ["Infinity", Number.POSITIVE_INFINITY, "Infinity"],
    ["a huge one", 1e9, "1000000000"],
  ])("refuses %s, naming the field and quoting the value", (_what, value, quoted) => {
    for (const field of ["sessionRetentionDays", "keptRunRetentionDays"]) {
      const message = refusal(staging({ [field]: value })).message;
      expect(message).toContain(`staging.${field} ${quoted} is not a whole number of days from 1 to 3650`);
      expect(message).toContain("write how many days to keep");
    }
  });

  it("takes 1 and 3650 days", () => {
    expect(() => construct(staging({ sessionRetentionDays: 1, keptRunRetentionDays: 3650 }))).not.toThrow();
  });
});
