// `agentcage doctor` against the real engine, the real agent image and real directories: what this
// machine's engine and runc are, the pinned CLIs as they answer --version, and the Staging Directory
// probe passing here, and failing for the Docker-out-of-Docker mistake made for real: the built
// doctor runs inside a container that has the engine's socket and this machine's node, with the
// Staging Directory's parent mounted at another path than the host's.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { PREFLIGHT_OWNER } from "../probes/index.js";
import { docker } from "../../test/support/engine.js";
import { canBoundWrites } from "../staging/index.js";
import { runcPredatesFix } from "./doctor-checks.js";
import { doctor } from "./doctor.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const IMAGE = "agentcage-agent:latest";
/** The container the doctor runs in for the Docker-out-of-Docker case: no Node of its own, this machine's is bound in. */
const ORCHESTRATOR_BASE = "debian:bookworm-slim";
const pinned = Object.fromEntries(
  execFileSync("sh", ["-c", `grep -E '^[A-Z_]+=' ${JSON.stringify(path.join(REPO, "images/agent/clis.env"))}`], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.split("=", 2) as [string, string]),
);

const made: string[] = [];
async function scratch(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "agentcage-doctor-docker-"));
  made.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The built doctor in a container: the engine's socket, this machine's node, the repository read-only, and `mounts`. */
function doctorInContainer(runtimeDir: string, mounts: readonly string[]): { code: number | null; lines: string[]; stderr: string } {
  const script = `const { doctor } = await import("/app/dist/cli/doctor.js");
process.exitCode = await doctor({ runtimeDir: ${JSON.stringify(runtimeDir)}, image: ${JSON.stringify(IMAGE)}, stream: process.stdout, environment: {} });`;
  const result = spawnSync(
    "docker",
    [
      "run",
      "--rm",
      "--network",
      "none",
      "--mount",
      "type=bind,source=/var/run/docker.sock,target=/var/run/docker.sock",
      "--mount",
      `type=bind,source=${process.execPath},target=/usr/local/bin/node,readonly`,
      "--mount",
      `type=bind,source=${REPO},target=/app,readonly`,
      ...mounts.flatMap((m) => ["--mount", m]),
      ORCHESTRATOR_BASE,
      "node",
      "--input-type=module",
      "-e",
      script,
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  return { code: result.status, lines: result.stdout.trimEnd().split("\n"), stderr: result.stderr };
}

const lineOf = (lines: readonly string[], check: string): string =>
  lines.find((l) => l.slice(6).startsWith(`${check} `)) ?? `(no ${check} line in ${JSON.stringify(lines)})`;

describe("agentcage doctor on this machine", () => {
  it("reports the real engine, its runc against CVE-2024-21626, the image's pinned CLIs, and a Staging Directory the engine binds", async () => {
    const runtimeDir = await scratch();
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (chunk: Buffer) => (text += chunk.toString()));
    const code = await doctor({ runtimeDir, image: IMAGE, stream, environment: {} });
    const lines = text.trimEnd().split("\n");

    expect(lineOf(lines, "engine")).toMatch(
      new RegExp(
        `^ok {4}engine {13}\\S.* ${escapeRegExp(docker("version", "--format", "{{.Server.Version}}"))} \\(API ${escapeRegExp(docker("version", "--format", "{{.Server.APIVersion}}"))}, linux/`,
      ),
    );
    const runc = docker("version", "--format", '{{range .Server.Components}}{{if eq .Name "runc"}}{{.Version}}{{end}}{{end}}');
    expect(lineOf(lines, "runtime")).toMatch(
      runcPredatesFix(runc)
        ? new RegExp(
            `^warn {2}runtime {12}runc ${escapeRegExp(runc)} .*is older than 1\\.1\\.12, which fixes CVE-2024-21626 .*; fix: upgrade runc to 1\\.1\\.12 or later`,
          )
        : new RegExp(`^ok {4}runtime {12}runc ${escapeRegExp(runc)} .*has the fix for CVE-2024-21626`),
    );
    expect(lineOf(lines, "runtimes")).toMatch(/^ok {4}runtimes {11}.*runc \(default\).*; gVisor/);
    expect(lineOf(lines, "image")).toMatch(
      new RegExp(`^ok {4}image {14}${escapeRegExp(IMAGE)} \\(${docker("image", "inspect", "--format", "{{.Id}}", IMAGE).slice(7, 19)}, built `),
    );
    expect(lineOf(lines, "claude cli")).toBe(`ok    claude cli         claude ${pinned["CLAUDE_VERSION"]} in the image, the version agentcage pins`);
    expect(lineOf(lines, "codex cli")).toBe(`ok    codex cli          codex ${pinned["CODEX_VERSION"]} in the image, the version agentcage pins`);
    expect(lineOf(lines, "claude credential")).toMatch(/^warn {2}claude credential {2}none, .*; fix: set \$CLAUDE_CODE_OAUTH_TOKEN or \$ANTHROPIC_API_KEY/);
    expect(lineOf(lines, "staging directory")).toBe(`ok    staging directory  ${runtimeDir}/staging is writable`);
    expect(lineOf(lines, "staging on engine")).toMatch(
      new RegExp(
        `^ok {4}staging on engine  a probe container read the file written into ${escapeRegExp(runtimeDir)}/staging: the engine binds it as this process sees it`,
      ),
    );
    // Whether this process may mount is the library's own probe; the line says which, since no pool is asked for.
    expect(lineOf(lines, "pool")).toMatch(
      new RegExp(
        `^ok {4}pool {15}none asked for \\(serve --pool, AGENTCAGE_POOL\\), so every Run starts cold; ${canBoundWrites() ? "one could" : "none could"} be made here`,
      ),
    );
    expect(code).toBe(0);
    expect(await readdir(path.join(runtimeDir, "staging"))).toEqual([]);
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.owner=${PREFLIGHT_OWNER}`)).toBe("");
  });

  it("passes the probe from inside a container whose Staging Directory is mounted at the host's own path", async () => {
    const host = await scratch();
    const { code, lines, stderr } = doctorInContainer(host, [`type=bind,source=${host},target=${host}`]);
    expect(lineOf(lines, "staging on engine"), stderr).toMatch(
      /^ok {4}staging on engine {2}.*the engine binds it as this process sees it, although this process runs in a container \(\/\.dockerenv\)$/,
    );
    // Root in a container without CAP_SYS_ADMIN may not mount: no pool could be made there.
    expect(lineOf(lines, "pool")).toMatch(/^ok {4}pool {15}none asked for .*; none could be made here: this process cannot mount/);
    expect(code).toBe(0);
    expect(await readdir(path.join(host, "staging"))).toEqual([]);
  });

  it("fails the Docker-out-of-Docker mistake (the host's directory mounted at another path, one the host has too) with -v X:X for the host's path, and exits 1", async () => {
    const host = await scratch();
    // The classic mistake: the host's data at one path, mounted where the orchestrator expects it, a path the host also has, as another directory.
    const elsewhere = await scratch();
    const { code, lines, stderr } = doctorInContainer(elsewhere, [`type=bind,source=${host},target=${elsewhere}`]);
    const line = lineOf(lines, "staging on engine");
    expect(line, stderr).toMatch(
      new RegExp(
        `^FAIL  staging on engine  this process runs in a container \\(/\\.dockerenv\\), and the engine resolves ${escapeRegExp(elsewhere)}/staging on its own host to another directory \\(this container's ${escapeRegExp(elsewhere)}/staging is the host's ${escapeRegExp(host)}/staging\\): the engine's host has no directory .*bind source path does not exist`,
      ),
    );
    expect(line).toMatch(
      new RegExp(
        `; fix: mount the host directory at the same absolute path inside the orchestrator's container: -v ${escapeRegExp(host)}:${escapeRegExp(host)}, and run with --runtime-dir ${escapeRegExp(host)}$`,
      ),
    );
    // Everything else holds from inside the container too.
    expect(lineOf(lines, "engine")).toMatch(/^ok /);
    expect(lineOf(lines, "claude cli")).toMatch(/^ok /);
    expect(lineOf(lines, "staging directory")).toMatch(/^ok /);
    expect(code).toBe(1);
    // The probe's file was written on the host's side and removed; the directory the host has at that path was never touched.
    expect(await readdir(path.join(host, "staging"))).toEqual([]);
    expect(await readdir(elsewhere)).toEqual([]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
