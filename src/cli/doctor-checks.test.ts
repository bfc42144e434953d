// The doctor's verdicts from the facts alone: runc's version against the fix for CVE-2024-21626,
// the engine, runtimes, image, CLIs, credentials, the Staging Directory and the warm pool, each with its fix.

import { describe, expect, it } from "vitest";
import { FAKE_ENGINE_FACTS, FAKE_IMAGE_FACTS } from "../../test/support/fake-engine.js";
import type { EngineFacts, StagingProbe } from "../subpaths/runtime.js";
import {
  cliCheck,
  compareVersions,
  credentialCheck,
  engineCheck,
  hostPathOf,
  imageCheck,
  parseVersion,
  poolCheck,
  runcPredatesFix,
  runtimeCheck,
  runtimesCheck,
  stagingCheck,
  stagingOnEngineCheck,
  type Version,
} from "./doctor-checks.js";

const v = (text: string): Version => {
  const parsed = parseVersion(text);
  if (parsed === undefined) throw new Error(`${text} did not parse`);
  return parsed;
};

describe("parseVersion and compareVersions", () => {
  it.each([
    ["1.1.5", { major: 1, minor: 1, patch: 5, prerelease: [] }],
    ["1.1.12", { major: 1, minor: 1, patch: 12, prerelease: [] }],
    ["1.2.0-rc.1", { major: 1, minor: 2, patch: 0, prerelease: ["rc", 1] }],
    ["v1.1.12-0-g51d5e94", { major: 1, minor: 1, patch: 12, prerelease: [] }],
    ["1.1.5+ds1", { major: 1, minor: 1, patch: 5, prerelease: [] }],
    ["1.0.0-rc93", { major: 1, minor: 0, patch: 0, prerelease: ["rc93"] }],
    ["1.6.20~ds1", { major: 1, minor: 6, patch: 20, prerelease: ["ds1"] }],
    ["1.2", { major: 1, minor: 2, patch: 0, prerelease: [] }],
  ])("reads %s", (text, expected) => {
    expect(parseVersion(text)).toEqual(expected);
  });

  it.each(["", "unknown", "1", "1.1.5 (patched)", "x1.1.5"])("finds no version in %j", (text) => {
    expect(parseVersion(text)).toBeUndefined();
  });

  it("orders by number, not by text, and puts a pre-release before its release", () => {
    const ordered = ["1.0.0-rc93", "1.1.5", "1.1.11", "1.1.12-rc.1", "1.1.12", "1.2.0-rc.1", "1.2.0-rc.2", "1.2.0-rc.10", "1.2.0", "1.10.0"];
    const shuffled = [...ordered].reverse();
    expect(shuffled.sort((a, b) => compareVersions(v(a), v(b)))).toEqual(ordered);
    expect(compareVersions(v("v1.1.12-0-g51d5e94"), v("1.1.12"))).toBe(0);
    expect(compareVersions(v("1.2.0-alpha"), v("1.2.0-1"))).toBe(1);
  });
});

describe("runcPredatesFix", () => {
  it.each<[string, boolean | undefined]>([
    ["1.1.5", true],
    ["1.1.5+ds1", true],
    ["1.1.11", true],
    ["1.0.0-rc93", true],
    ["1.1.12", false],
    ["v1.1.12-0-g51d5e94", false],
    ["1.1.13", false],
    ["1.2.0-rc.1", false],
    ["2.0.0", false],
    ["unknown", undefined],
  ])("says %s → %s", (version, predates) => {
    expect(runcPredatesFix(version)).toBe(predates);
  });
});

const withRunc = (version: string, detail = "", over: Partial<EngineFacts> = {}): EngineFacts => ({
  ...FAKE_ENGINE_FACTS,
  components: [
    { name: "Engine", version: "20.10.24", detail: "" },
    { name: "runc", version, detail },
  ],
  ...over,
});

describe("runtimeCheck", () => {
  it("warns that runc 1.1.5 lacks the fix for CVE-2024-21626, naming its build and how to confirm a backport", () => {
    expect(runtimeCheck(withRunc("1.1.5+ds1", "1.1.5+ds1-1+deb12u1"))).toEqual({
      check: "runtime",
      status: "warn",
      detail:
        "runc 1.1.5+ds1 (build 1.1.5+ds1-1+deb12u1) is older than 1.1.12, which fixes CVE-2024-21626 (a container escape through a leaked directory descriptor); it is the default runtime, which every Run gets",
      fix: "upgrade runc to 1.1.12 or later, or confirm that the package 1.1.5+ds1-1+deb12u1 carries the fix backported (its changelog names CVE-2024-21626)",
    });
  });

  it("passes runc 1.1.12 and later, git describe's spelling included", () => {
    expect(runtimeCheck(withRunc("1.1.12", "v1.1.12-0-g51d5e94"))).toEqual({
      check: "runtime",
      status: "ok",
      detail: "runc 1.1.12 (build v1.1.12-0-g51d5e94) has the fix for CVE-2024-21626; it is the default runtime, which every Run gets",
    });
    expect(runtimeCheck(withRunc("1.2.0-rc.1")).status).toBe("ok");
  });

  it("warns when the engine does not say runc's version, or says one that cannot be read", () => {
    expect(runtimeCheck({ ...FAKE_ENGINE_FACTS, components: [] })).toMatchObject({ status: "warn", fix: expect.stringContaining("runc --version") });
    expect(runtimeCheck(withRunc("patched"))).toMatchObject({ status: "warn", detail: expect.stringContaining('runc "patched"') });
  });

  it("does not hold an old runc against an engine whose default runtime is gVisor", () => {
    expect(runtimeCheck(withRunc("1.1.5", "", { defaultRuntime: "runsc" }))).toEqual({
      check: "runtime",
      status: "ok",
      detail: "runsc (gVisor): it is the default runtime, which every Run gets; runc 1.1.5 is there too, unused by Runs",
    });
  });

  it("takes containerd's runc shim for runc", () => {
    expect(runtimeCheck(withRunc("1.1.4", "", { defaultRuntime: "io.containerd.runc.v2" })).status).toBe("warn");
  });
});

describe("runtimesCheck", () => {
  it("lists the runtimes, marks the default, and says whether gVisor is registered", () => {
    expect(runtimesCheck(FAKE_ENGINE_FACTS).detail).toBe(
      "io.containerd.runc.v2, runc (default), runsc; gVisor is registered as runsc; Runs get it only when it is the engine's default runtime",
    );
    expect(
      runtimesCheck({
        ...FAKE_ENGINE_FACTS,
        runtimes: [
          { name: "runc", path: "runc" },
          { name: "crun", path: "/usr/bin/crun" },
        ],
      }),
    ).toEqual({
      check: "runtimes",
      status: "ok",
      detail: "runc (default), crun; gVisor (runsc) is not registered; also crun",
    });
    expect(runtimesCheck({ ...FAKE_ENGINE_FACTS, defaultRuntime: "gvisor", runtimes: [{ name: "gvisor", path: "/usr/bin/runsc" }] }).detail).toContain(
      "gVisor is registered as gvisor and is the default",
    );
  });
});

describe("engineCheck", () => {
  it("names the engine, its version, API, platform and host", () => {
    expect(engineCheck({ ok: true, facts: FAKE_ENGINE_FACTS }, "unix:///var/run/docker.sock")).toEqual({
      check: "engine",
      status: "ok",
      detail: "Docker Engine 26.1.4 (API 1.45, linux/amd64) on Debian GNU/Linux 12 (bookworm), at unix:///var/run/docker.sock",
    });
  });

  it.each([
    ["ECONNREFUSED", /^start the engine \(dockerd\)/],
    ["EACCES", /may not use the engine's socket: run as a member of its group \(docker\) or as root/],
  ])("fails when the engine does not answer (%s), with the fix for that", (code, fix) => {
    const check = engineCheck({ ok: false, code, error: "the container engine is unreachable" }, "unix:///var/run/docker.sock");
    expect(check).toMatchObject({ status: "fail", detail: `no answer at unix:///var/run/docker.sock (${code})`, fix: expect.stringMatching(fix) });
  });

  it.each([
    ["tls", "TLS: the engine refused this client's certificate (bad certificate); ...", "mend the engine's TLS certificates as said above"],
    ["ssh", "ssh: the engine's host key is not one ~/.ssh/known_hosts holds ...", "mend known_hosts or the ssh-agent's keys as said above"],
  ] as const)("fails a %s refusal in its own words, with the fix for what it names", (trouble, error, fix) => {
    const check = engineCheck({ ok: false, code: "ERR_ANY", error, trouble }, 'engine "b"');
    expect(check).toEqual({ check: "engine", status: "fail", detail: error, fix });
  });
});

describe("imageCheck", () => {
  it("passes an image the engine holds, naming its id, build time and platform", () => {
    expect(imageCheck("agentcage-agent:latest", { ok: true, facts: FAKE_IMAGE_FACTS }, FAKE_ENGINE_FACTS, true)).toEqual({
      check: "image",
      status: "ok",
      detail: "agentcage-agent:latest (0123456789ab, built 2025-01-02 03:04:05, linux/amd64)",
    });
  });

  it("fails a missing image with how to build it, and warns of one built for another platform", () => {
    expect(imageCheck("agentcage-agent:latest", { ok: true, facts: undefined }, FAKE_ENGINE_FACTS, true)).toEqual({
      check: "image",
      status: "fail",
      detail: "agentcage-agent:latest is not on this engine (nothing is pulled)",
      fix: "build it: agentcage image build agent",
    });
    expect(imageCheck("mine:1", { ok: true, facts: undefined }, FAKE_ENGINE_FACTS, false).fix).toBe(
      "build or load it on this engine, or name another with --image",
    );
    expect(imageCheck("mine:1", { ok: true, facts: { ...FAKE_IMAGE_FACTS, arch: "arm64" } }, FAKE_ENGINE_FACTS, false)).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("is built for arm64, and the engine runs amd64"),
    });
  });
});

describe("cliCheck", () => {
  it("passes the pinned version, warns of another, fails a CLI that did not answer", () => {
    expect(cliCheck("claude", { ok: true, version: "2.1.332", said: "2.1.332 (Claude Code)" }, "2.1.332")).toEqual({
      check: "claude cli",
      status: "ok",
      detail: "claude 2.1.332 in the image, the version agentcage pins",
    });
    expect(cliCheck("codex", { ok: true, version: "0.180.0", said: "codex-cli 0.180.0" }, "0.171.0")).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("codex 0.180.0 in the image; this agentcage was checked against 0.171.0"),
      fix: "rebuild the agent image from this agentcage: agentcage image build agent",
    });
    expect(cliCheck("codex", { ok: false, error: 'codex --version in "x": it printed no version' }, "0.171.0")).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("agentcage image build agent"),
    });
  });
});

describe("credentialCheck", () => {
  it("names the kind, never a value; warns of none with where to put one; fails a source that is there but unusable", () => {
    expect(credentialCheck("claude", "oauth_token", [], undefined)).toEqual({
      check: "claude credential",
      status: "ok",
      detail: "an OAuth token (oauth_token); its value is never shown",
    });
    expect(credentialCheck("codex", "none", ["$OPENAI_API_KEY", "/etc/agentcage/secrets/openai_api_key", "$CODEX_API_KEY"], undefined)).toEqual({
      check: "codex credential",
      status: "warn",
      detail: "none, so every codex Run ends as unavailable (unless it runs against the stand-in model)",
      fix: 'set $OPENAI_API_KEY or "/etc/agentcage/secrets/openai_api_key" or $CODEX_API_KEY (a file: mode 0600) where agentcage runs',
    });
    expect(credentialCheck("claude", "none", [], 'secrets file "/s/anthropic_api_key" is mode 0644, readable by others; chmod 600 it')).toMatchObject({
      status: "fail",
    });
  });
});

describe("the Staging Directory checks", () => {
  const onHost = { inContainer: false, evidence: "" };
  const inside = { inContainer: true, evidence: "/.dockerenv", containerId: "c".repeat(64) };
  const missing: StagingProbe = {
    ok: false,
    runtimeDir: "/data/agentcage/staging",
    failure: "not_on_engine",
    error: 'the engine\'s host has no directory "/data/agentcage/staging/.probe-x": ...',
    durationMs: 5,
  };

  it("pass when the probe container read the nonce, saying so even from a container", () => {
    const ok: StagingProbe = { ok: true, runtimeDir: "/srv/agentcage/staging", durationMs: 300 };
    expect(stagingCheck(ok)).toEqual({ check: "staging directory", status: "ok", detail: "/srv/agentcage/staging is writable" });
    expect(stagingOnEngineCheck(ok, inside, "/srv/agentcage", undefined, false).detail).toMatch(
      /binds it as this process sees it, although this process runs in a container \(\/\.dockerenv\)$/,
    );
  });

  it("fail an unwritable directory with the uid to fix it for, and skip the probe", () => {
    const unwritable: StagingProbe = {
      ok: false,
      runtimeDir: "/srv/x/staging",
      failure: "unwritable",
      error: 'this process cannot create a directory in "/srv/x/staging" (EACCES)',
      durationMs: 1,
    };
    expect(stagingCheck(unwritable)).toMatchObject({
      status: "fail",
      fix: expect.stringMatching(/^make \/srv\/x\/staging writable( by uid \d+)?, or name a directory/),
    });
    expect(stagingOnEngineCheck(unwritable, onHost, "/srv/x", undefined, false).status).toBe("skip");
  });

  it("fail the Docker-out-of-Docker mistake with -v X:X, naming the host's path when this container's mounts say it", () => {
    const mounts = [
      { source: "/var/run/docker.sock", destination: "/var/run/docker.sock", readOnly: false },
      { source: "/srv/agentcage-data", destination: "/data", readOnly: false },
    ];
    expect(stagingOnEngineCheck(missing, inside, "/data/agentcage", mounts, false)).toEqual({
      check: "staging on engine",
      status: "fail",
      detail: `this process runs in a container (/.dockerenv), and the engine resolves /data/agentcage/staging on its own host to another directory (this container's /data/agentcage/staging is the host's /srv/agentcage-data/agentcage/staging): ${missing.ok ? "" : missing.error}`,
      fix: "mount the host directory at the same absolute path inside the orchestrator's container: -v /srv/agentcage-data/agentcage:/srv/agentcage-data/agentcage, and run with --runtime-dir /srv/agentcage-data/agentcage",
    });
    expect(stagingOnEngineCheck(missing, inside, "/data/agentcage", undefined, false).fix).toMatch(
      /^mount the host's directory at the same absolute path inside the orchestrator's container \(-v X:X/,
    );
  });

  it("fail a directory the engine does not see from a host with another fix, and skip the probe without the image", () => {
    expect(stagingOnEngineCheck(missing, onHost, "/data/agentcage", undefined, false)).toMatchObject({
      status: "fail",
      fix: expect.stringMatching(/^run agentcage on the engine's host/),
    });
    expect(stagingOnEngineCheck(missing, onHost, "/data/agentcage", undefined, true).status).toBe("skip");
  });

  it("find the host's path through the deepest mount that holds it", () => {
    const mounts = [
      { source: "/host", destination: "/", readOnly: false },
      { source: "/big/disk", destination: "/var/lib", readOnly: false },
    ];
    expect(hostPathOf("/var/lib/agentcage", mounts)).toBe("/big/disk/agentcage");
    expect(hostPathOf("/var/lib", mounts)).toBe("/big/disk");
    expect(hostPathOf("/var/library", [{ source: "/big/disk", destination: "/var/lib", readOnly: false }])).toBeUndefined();
  });
});

describe("poolCheck", () => {
  it("passes a pool this process can make, and says none was asked for without one, whether or not one could be", () => {
    expect(poolCheck("2", true, true, 256)).toEqual({
      check: "pool",
      status: "ok",
      detail: "a pool of 2 can be made here: the agent image is present and this process can mount a tmpfs for each pooled container's out/",
    });
    expect(poolCheck(undefined, true, true, 256)).toMatchObject({ status: "ok", detail: expect.stringMatching(/^none asked for .*; one could be made here/) });
    expect(poolCheck("", false, true, 256)).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/; none could be made here: this process cannot mount/),
    });
    expect(poolCheck("0", false, undefined, 256).status).toBe("ok");
  });

  it("fails a pool asked for that this process cannot mount for, with the fix, and a value serve would refuse", () => {
    const refused = poolCheck("2", false, true, 256);
    expect(refused).toMatchObject({ status: "fail", detail: expect.stringContaining("AGENTCAGE_POOL asks for 2 pooled containers") });
    expect(refused.fix).toContain("run serve as root on the engine's host, or set AGENTCAGE_POOL=0");
    for (const bad of ["two", "-1", "257", "1.5", " "]) {
      expect(poolCheck(bad, true, true, 256)).toMatchObject({
        status: "fail",
        detail: `AGENTCAGE_POOL ${JSON.stringify(bad)} is not a whole number from 0 to 256, so serve would refuse it`,
      });
    }
  });

  it("skips a pool asked for when the engine does not answer or the image is missing", () => {
    expect(poolCheck("2", true, undefined, 256)).toEqual({ check: "pool", status: "skip", detail: "the engine does not answer" });
    expect(poolCheck("2", true, false, 256)).toEqual({ check: "pool", status: "skip", detail: "the agent image is missing" });
  });
});
