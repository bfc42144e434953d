// `agentcage doctor` against the fake engine: one line per check in a fixed order, the fix beside
// each failure, the exit status, --json, colour only when asked, no credential value anywhere, and
// the signs of running in a container read from a directory of the test's own.

import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine, createUnreachableEngine, type FakeContainerScript, type FakeEngineOptions } from "../../test/support/fake-engine.js";
import type { ComposedSpec } from "../subpaths/runtime.js";
import { doctor, renderCheck, whereabouts, type DoctorOptions } from "./doctor.js";
import { UsageError } from "./options.js";

const pinned = Object.fromEntries(
  readFileSync(new URL("../../images/agent/clis.env", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.split("=", 2) as [string, string]),
);
const ON_HOST = { inContainer: false, evidence: "" };

const made: string[] = [];
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentcage-doctor-"));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** An agent image whose CLIs answer --version, and whose cat prints what the engine bound. */
function agentImage(spec: ComposedSpec): FakeContainerScript {
  const command = spec.entrypoint?.[0];
  if (command === "claude") return { stdout: [`${pinned["CLAUDE_VERSION"]} (Claude Code)\n`] };
  if (command === "codex") return { stdout: [`codex-cli ${pinned["CODEX_VERSION"]}\n`] };
  if (command === "cat") return { stdout: [readFileSync(join(spec.mounts[0]?.Source ?? "", "nonce"))] };
  return { exitCode: 127 };
}

async function run(options: Partial<DoctorOptions> & { engineOptions?: FakeEngineOptions } = {}) {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const { engineOptions, ...rest } = options;
  const code = await doctor({
    runtimeDir: await scratch(),
    image: "agentcage-agent:latest",
    stream,
    environment: {},
    engine: createFakeEngine(agentImage, engineOptions),
    whereabouts: ON_HOST,
    routes: () => ({ hosts: [], engines: [] }),
    ...rest,
  });
  return { code, text, lines: text.trimEnd().split("\n") };
}

describe("agentcage doctor", () => {
  it("prints one line per check in a fixed order, and exits 0 when nothing failed", async () => {
    const { code, lines } = await run({ environment: { ANTHROPIC_API_KEY: "sk-ant-doctor-test-0123456789" } });
    expect(lines.map((l) => l.slice(0, 24).trimEnd())).toEqual([
      "ok    engine",
      "ok    runtime",
      "ok    runtimes",
      "ok    image",
      "ok    claude cli",
      "ok    codex cli",
      "ok    claude credential",
      "warn  codex credential",
      "ok    staging directory",
      "ok    staging on engine",
      "ok    pool",
      "ok    run network range",
      "agentcage doctor: 11 ok,",
    ]);
    expect(lines[7]).toBe(
      "warn  codex credential   none, so every codex Run ends as unavailable (unless it runs against the stand-in model); fix: set $OPENAI_API_KEY or $CODEX_API_KEY where agentcage runs",
    );
    expect(lines.at(-1)).toBe("agentcage doctor: 11 ok, 1 warning");
    expect(code).toBe(0);
  });

  it("warns of an old runc and still exits 0", async () => {
    const { code, lines } = await run({ engineOptions: { facts: { components: [{ name: "runc", version: "1.1.5", detail: "" }] } } });
    expect(lines[1]).toMatch(/^warn {2}runtime {12}runc 1\.1\.5 is older than 1\.1\.12, which fixes CVE-2024-21626 .*; fix: upgrade runc to 1\.1\.12 or later/);
    expect(code).toBe(0);
  });

  it("with several engines, says of each whether it answers and holds the image, and fails when one cannot", async () => {
    const { code, lines } = await run({
      engine: undefined,
      engines: [
        { name: "a", engine: createFakeEngine(agentImage) },
        { name: "b", engine: createFakeEngine(agentImage, { images: {} }) },
        { name: "c", engine: createUnreachableEngine() },
      ],
    } as unknown as Partial<DoctorOptions>);
    const each = lines.filter((line) => / (engine|image on) [abc] /.test(line));
    expect(each.map((line) => line.replace(/\s+/g, " "))).toEqual([
      expect.stringMatching(/^ok engine a .* at engine "a"$/),
      expect.stringMatching(/^ok image on a agentcage-agent:latest \(/),
      expect.stringMatching(/^ok engine b .* at engine "b"$/),
      "FAIL image on b agentcage-agent:latest is not on this engine (nothing is pulled); fix: build it: agentcage image build agent",
      expect.stringMatching(/^FAIL engine c no answer at engine "c" \(ECONNREFUSED\); fix: /),
      "skip image on c the engine does not answer",
    ]);
    expect(lines[0]).toMatch(/^ok {4}engine .* at engine "a"$/);
    expect(code).toBe(1);
  });

  it("fails a missing image with its fix, skips what needs it, and exits 1", async () => {
    const { code, lines } = await run({ engineOptions: { images: {} } });
    expect(lines[3]).toBe(
      "FAIL  image              agentcage-agent:latest is not on this engine (nothing is pulled); fix: build it: agentcage image build agent",
    );
    expect(lines[4]).toBe("skip  claude cli         the agent image is missing");
    expect(lines[9]).toBe("skip  staging on engine  the probe runs in the agent image, which is missing");
    expect(code).toBe(1);
  });

  it("skips whether the engine binds the Staging Directory when AGENTCAGE_RUN_FILES=engine, which binds none of it", async () => {
    const { code, lines } = await run({ environment: { AGENTCAGE_RUN_FILES: "engine" } });
    expect(lines[9]).toBe("skip  staging on engine  AGENTCAGE_RUN_FILES=engine: each Run's files go through the engine, which need not see this directory");
    expect(code).toBe(0);
  });

  it("fails an engine that does not answer, skips what needs it, and still checks the Staging Directory and credentials", async () => {
    const { code, lines } = await run({ engine: createUnreachableEngine() });
    expect(lines[0]).toBe(
      "FAIL  engine             no answer at the engine given (ECONNREFUSED); fix: start the engine (dockerd), or set DOCKER_HOST to the address of one that runs",
    );
    expect(lines.slice(1, 6).map((l) => l.slice(0, 4))).toEqual(["skip", "skip", "skip", "skip", "skip"]);
    expect(lines[6]).toMatch(/^warn {2}claude credential/);
    expect(lines[8]).toMatch(/^ok {4}staging directory .*\/staging is writable$/);
    expect(lines[9]).toBe("skip  staging on engine  the engine does not answer");
    expect(code).toBe(1);
  });

  it("fails the Docker-out-of-Docker mistake from inside a container with -v X:X for the host's own path", async () => {
    const runtimeDir = await scratch();
    const id = "a".repeat(64);
    const engine = createFakeEngine(
      (spec) =>
        spec.entrypoint?.[0] === "cat"
          ? {
              fail: {
                create: { statusCode: 400, message: `invalid mount config for type "bind": bind source path does not exist: ${spec.mounts[0]?.Source}` },
              },
            }
          : agentImage(spec),
      { mounts: { [id]: [{ source: "/srv/agentcage-data", destination: runtimeDir, readOnly: false }] } },
    );
    const { code, lines } = await run({ runtimeDir, engine, whereabouts: { inContainer: true, evidence: "/.dockerenv", containerId: id } });
    expect(lines[9]).toMatch(
      new RegExp(
        `^FAIL  staging on engine  this process runs in a container \\(/\\.dockerenv\\), and the engine resolves ${runtimeDir}/staging on its own host to another directory \\(this container's ${runtimeDir}/staging is the host's /srv/agentcage-data/staging\\): .*bind source path does not exist.*; fix: mount the host directory at the same absolute path inside the orchestrator's container: -v /srv/agentcage-data:/srv/agentcage-data, and run with --runtime-dir /srv/agentcage-data$`,
      ),
    );
    expect(code).toBe(1);
  });

  it("fails a secrets file others can read, naming it, and shows no credential value anywhere", async () => {
    const secrets = await scratch();
    await writeFile(join(secrets, "anthropic_api_key"), "sk-ant-from-a-file-0123456789\n", { mode: 0o644 });
    const secret = "sk-openai-doctor-secret-0123456789";
    const { code, text, lines } = await run({ secretsDirectory: secrets, environment: { OPENAI_API_KEY: secret } });
    expect(lines[6]).toMatch(/^FAIL {2}claude credential {2}secrets file ".*\/anthropic_api_key" is mode 0644, readable by others; chmod 600 it; fix: /);
    expect(lines[7]).toBe("ok    codex credential   an API key (api_key); its value is never shown");
    expect(text).not.toContain(secret);
    expect(text).not.toContain("sk-ant-from-a-file");
    expect(code).toBe(1);
  });

  it("masks a credential value wherever a check would quote it", async () => {
    const secret = "sk-ant-quoted-by-the-engine-0123456789";
    const { text } = await run({ environment: { ANTHROPIC_API_KEY: secret }, engineOptions: { facts: { operatingSystem: `Debian ${secret}` } } });
    expect(text).not.toContain(secret);
    expect(text).toContain("Debian [REDACTED]");
  });

  it("reports a check that throws as its own failure, and goes on with the others", async () => {
    const { code, lines } = await run({ engineOptions: { facts: { components: null } as unknown as NonNullable<FakeEngineOptions["facts"]> } });
    expect(lines[1]).toMatch(/^FAIL {2}runtime {12}the check itself failed: .*; fix: report this as a bug in agentcage$/);
    expect(lines[9]).toMatch(/^ok {4}staging on engine/);
    expect(code).toBe(1);
  });

  it("says whether the Run networks' range overlaps a route, failing a named one serve would refuse, with the fix", async () => {
    const routes = (range: string) =>
      range === "10.213.0.0/16"
        ? { hosts: ["10.213.64.0/24 via wg0"], engines: [] }
        : { hosts: [], engines: ["10.99.0.0/24 via br-0123456789ab, the engine's network 0123456789ab"] };
    const fix =
      "fix: set AGENTCAGE_RUN_NETWORK_RANGE (serve --run-network-range) to a range no network of this host or its engine uses, e.g. a /16 of 10.0.0.0/8";
    const line = (found: { lines: string[] }) => found.lines.find((one) => one.includes("run network range"));
    const byDefault = await run({ routes });
    expect(line(byDefault)).toBe(
      `warn  run network range  10.213.0.0/16 (the default) overlaps the route to 10.213.64.0/24 via wg0: no Run under the model, allowlist or open policy could have a network of its own; ${fix}`,
    );
    expect(byDefault.code).toBe(0);
    const named = await run({ routes, environment: { AGENTCAGE_RUN_NETWORK_RANGE: "10.213.0.0/16" } });
    expect(line(named)).toMatch(
      /^FAIL {2}run network range {2}10\.213\.0\.0\/16 \(AGENTCAGE_RUN_NETWORK_RANGE\) overlaps the route to 10\.213\.64\.0\/24 via wg0: serve would refuse it; fix: /,
    );
    expect(named.code).toBe(1);
    const engines = await run({ routes, environment: { AGENTCAGE_RUN_NETWORK_RANGE: "10.99.0.0/16" } });
    expect(line(engines)).toBe(
      `warn  run network range  10.99.0.0/16 (AGENTCAGE_RUN_NETWORK_RANGE) overlaps the route to 10.99.0.0/24 via br-0123456789ab, the engine's network 0123456789ab: the engine refuses a Run's network there; ${fix}; or remove that network`,
    );
    const wrong = await run({ routes, environment: { AGENTCAGE_RUN_NETWORK_RANGE: "10.99.0.0/30" } });
    expect(line(wrong)).toMatch(/^FAIL {2}run network range {2}AGENTCAGE_RUN_NETWORK_RANGE "10\.99\.0\.0\/30" is not an IPv4 range of \/8 to \/28/);
  });

  it("asks a running service what makes it less than it says, a line for each with its fix, after every other check", async () => {
    const since = "2026-12-01T10:00:00.000Z";
    const degraded = await run({
      service: async () => ({
        ok: true,
        url: "http://127.0.0.1:8750",
        version: "0.1.0",
        ready: true,
        degraded: [
          {
            kind: "pool",
            reason: "the warm pool could not make a container 18 times in a row (the last: no such image)",
            fix: "mend it",
            stopsRuns: false,
            since,
          },
          { kind: "engine", subject: "b", reason: 'engine "b": it stopped answering', stopsRuns: true, since },
        ],
      }),
    });
    expect(degraded.lines.slice(-3)).toEqual([
      `warn  service pool       http://127.0.0.1:8750: the warm pool could not make a container 18 times in a row (the last: no such image) (since ${since}); fix: mend it`,
      `FAIL  service engine b   http://127.0.0.1:8750: engine "b": it stopped answering (since ${since}); fix: an admin key reads the fix (GET /v1/service); ask the Operator`,
      "agentcage doctor: 10 ok, 3 warnings, 1 failed",
    ]);
    const fine = await run({ service: async () => ({ ok: true, url: "http://127.0.0.1:8750", version: "0.1.0", ready: true, degraded: [] }) });
    expect(fine.lines.at(-2)).toBe("ok    service            http://127.0.0.1:8750 (agentcage 0.1.0) is ready, and nothing is degraded");
    const gone = await run({
      service: async () => ({ ok: false, url: "http://127.0.0.1:9", error: "the service at http://127.0.0.1:9 could not be asked: ECONNREFUSED" }),
    });
    expect(gone.lines.at(-2)).toMatch(
      /^FAIL {2}service {12}the service at http:\/\/127\.0\.0\.1:9 could not be asked: ECONNREFUSED; fix: start agentcage serve there/,
    );
    expect(gone.code).toBe(1);
  });

  it("prints a JSON array of { check, status, detail, fix } with --json, and nothing else", async () => {
    const { code, text } = await run({ json: true, engineOptions: { images: {} } });
    const checks = JSON.parse(text) as { check: string; status: string; detail: string; fix: string | null }[];
    expect(checks.map((c) => c.check)).toEqual([
      "engine",
      "runtime",
      "runtimes",
      "image",
      "claude cli",
      "codex cli",
      "claude credential",
      "codex credential",
      "staging directory",
      "staging on engine",
      "pool",
      "run network range",
    ]);
    expect(checks[3]).toEqual({
      check: "image",
      status: "fail",
      detail: "agentcage-agent:latest is not on this engine (nothing is pulled)",
      fix: "build it: agentcage image build agent",
    });
    expect(checks[0]?.fix).toBeNull();
    expect(code).toBe(1);
  });

  it("colours the status words only when asked", async () => {
    const plain = await run();
    expect(plain.text).not.toMatch(/\u001b\[/);
    const check = { check: "image", status: "fail", detail: "gone", fix: "build it" } as const;
    expect(renderCheck(check, false)).toBe("FAIL  image              gone; fix: build it");
    expect(renderCheck(check, true)).toBe("\u001b[1m\u001b[31mFAIL\u001b[39m\u001b[22m  image              gone; \u001b[1mfix\u001b[22m: build it");
  });

  it.each<[string, Partial<DoctorOptions>, RegExp]>([
    ["a relative --runtime-dir", { runtimeDir: "state/agentcage" }, /^--runtime-dir "state\/agentcage" is not an absolute path; write it from the root/],
    ["an --image that is a flag", { image: "--json" }, /^--image "--json" is not an image reference; write one such as "agentcage-agent:latest"$/],
    ["an unknown option", { verbose: true } as Partial<DoctorOptions>, /^doctor option "verbose" is not one it knows/],
    ["a json that is no boolean", { json: "yes" } as unknown as Partial<DoctorOptions>, /^doctor option json "yes" is not a boolean/],
  ])("refuses %s as a usage error, naming it", async (_, bad, message) => {
    const options = { runtimeDir: "/srv/agentcage", image: "agentcage-agent:latest", stream: new PassThrough(), ...bad } as DoctorOptions;
    await expect(doctor(options)).rejects.toThrow(UsageError);
    await expect(doctor(options)).rejects.toThrow(message);
  });
});

describe("whereabouts", () => {
  async function root(files: Record<string, string>): Promise<string> {
    const dir = await scratch();
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }
  const id = "0123456789abcdef".repeat(4);

  it("finds a Docker container by /.dockerenv, and its id in the files Docker bound into it", async () => {
    const mountinfo = `612 590 0:52 / / rw,relatime - overlay overlay rw\n630 612 8:1 /var/lib/docker/containers/${id}/hostname /etc/hostname rw,relatime - ext4 /dev/sda1 rw\n`;
    expect(await whereabouts(await root({ ".dockerenv": "", "proc/self/mountinfo": mountinfo }))).toEqual({
      inContainer: true,
      evidence: "/.dockerenv",
      containerId: id,
    });
  });

  it("finds a podman container by /run/.containerenv and its id there", async () => {
    expect(await whereabouts(await root({ "run/.containerenv": `engine="podman-4.3.1"\nname="orchestrator"\nid="${id}"\n` }))).toEqual({
      inContainer: true,
      evidence: "/run/.containerenv",
      containerId: id,
    });
  });

  it("finds a container by its cgroup alone, and a host by the absence of every sign", async () => {
    expect(await whereabouts(await root({ "proc/1/cgroup": "12:pids:/kubepods/besteffort/pod1/abc\n" }))).toEqual({
      inContainer: true,
      evidence: "/proc/1/cgroup",
    });
    expect(await whereabouts(await root({ "proc/1/cgroup": "0::/init.scope\n" }))).toEqual({ inContainer: false, evidence: "" });
  });
});
