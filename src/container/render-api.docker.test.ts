// One spec, two renderings. A container created by run() through the Engine API and
// one created by the docker CLI from commandFor()'s words must agree on every security field.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { TEST_IMAGE, capturingLogger, docker } from "../../test/support/engine.js";

type Inspected = { Config: Record<string, unknown>; HostConfig: Record<string, unknown> };

const SECURITY_FIELDS = {
  HostConfig: [
    "Init",
    "CapAdd",
    "CapDrop",
    "SecurityOpt",
    "ReadonlyRootfs",
    "Tmpfs",
    "PidsLimit",
    "Memory",
    "MemorySwap",
    "NanoCpus",
    "Ulimits",
    "Mounts",
    "Binds",
    "NetworkMode",
    "Privileged",
    "Devices",
    "PidMode",
    "IpcMode",
    "UsernsMode",
    "LogConfig",
  ],
  Config: ["User", "Tty", "OpenStdin", "StdinOnce", "Entrypoint", "Cmd", "Image", "WorkingDir", "StopTimeout"],
} as const;

function securityView(inspected: Inspected) {
  // An empty list and an absent one mean the same to the engine (the CLI sends [], the API body nothing).
  const none = (v: unknown) => (v === undefined || (Array.isArray(v) && v.length === 0) ? null : v);
  const pick = (from: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, none(from[k])]));
  const env = (inspected.Config["Env"] as string[] | null) ?? [];
  return {
    HostConfig: pick(inspected.HostConfig, SECURITY_FIELDS.HostConfig),
    Config: pick(inspected.Config, SECURITY_FIELDS.Config),
    Env: env.filter((e) => e.startsWith("DECLARED_")).sort(),
    Labels: Object.fromEntries(
      Object.entries((inspected.Config["Labels"] as Record<string, string>) ?? {}).filter(([k]) => k !== "agentcage.run" && k !== "agentcage.deadline"),
    ),
  };
}

describe("the two renderings of one spec", () => {
  const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-agreement-"));
  execFileSync("mkdir", ["-p", join(runtimeDir, "work", "out")]);
  afterAll(() => rmSync(runtimeDir, { recursive: true, force: true }));

  it("create containers that agree on every security-relevant field", async () => {
    let fromApi: Inspected | undefined;
    const runtime = createAgentContainerRuntime({
      container: {
        image: TEST_IMAGE,
        logger: capturingLogger().logger,
        entrypoint: ["/bin/sh", "-c"],
        mounts: {
          runtimeDir,
          entries: [
            { agentPath: "/work", path: "work", readOnly: true },
            { agentPath: "/work/out", path: "work/out" },
          ],
        },
        env: { DECLARED_ONE: "first value", DECLARED_TWO: "second value" },
        limits: { memoryBytes: 256 * 1024 * 1024, cpus: 0.5, pids: 64, tmpfsBytes: 16 * 1024 * 1024 },
        labels: { team: "review-bot" },
        workdir: "/work",
        extraArgs: ["--label", "extra=yes", "-e", "DECLARED_THREE=third value"],
      },
      run: () => ({
        args: ["echo up; sleep 2"],
        stdin: "",
        outcome: async (stdout) => {
          for await (const _chunk of stdout) {
            if (fromApi !== undefined) continue;
            const id = docker("ps", "--quiet", "--filter", "label=team=review-bot");
            fromApi = (JSON.parse(docker("inspect", id)) as Inspected[])[0];
          }
          return { ok: true };
        },
      }),
    });
    const outcome = await runtime.run({ text: "" });
    expect(outcome.reason).toBe("completed");

    const command = runtime.commandFor({ text: "" });
    expect(command.args[0]).toBe("run");
    // The same words, as `docker create`, so the container can be inspected without running it.
    const id = execFileSync(command.command, ["create", ...command.args.slice(1)], {
      encoding: "utf8",
      env: { ...process.env, ...command.env },
    }).trim();
    try {
      const fromCli = (JSON.parse(docker("inspect", id)) as Inspected[])[0] as Inspected;
      const api = securityView(fromApi as Inspected);
      const cli = securityView(fromCli);
      expect(api).toEqual(cli);
      // And the values are the hardened ones, not merely equal.
      expect(api.HostConfig).toMatchObject({
        Init: true,
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        ReadonlyRootfs: true,
        PidsLimit: 64,
        Memory: 256 * 1024 * 1024,
        NanoCpus: 500_000_000,
        NetworkMode: "none",
        Privileged: false,
        Ulimits: [{ Name: "core", Soft: 0, Hard: 0 }],
        // The Run reads its streams by attach; the engine keeps no (unmasked) log file of them.
        LogConfig: { Type: "none", Config: {} },
      });
      expect(api.Env).toEqual(["DECLARED_ONE=first value", "DECLARED_THREE=third value", "DECLARED_TWO=second value"]);
      expect(api.Config["User"]).not.toMatch(/^(0|root)(:|$)/);
    } finally {
      docker("rm", "--force", id);
    }
  });
});
