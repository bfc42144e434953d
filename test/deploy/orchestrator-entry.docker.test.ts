// The orchestrator image's entry against the mistakes an operator can make, each run for real: it
// refuses to serve, exits non-zero and says what to change. The Docker-out-of-Docker mistake (the
// Staging Directory mounted at another path than the host's) is caught by `agentcage doctor`.

import { spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORCHESTRATOR_IMAGE, ORCHESTRATOR_UID, useCurrentOrchestratorImage } from "./docker-compose.js";

const SOCKET = "/var/run/docker.sock";
const root = mkdtempSync(join(tmpdir(), "agentcage-entry-"));
const staging = mkdtempSync(join(root, "staging-"));
/** Another directory of the host, empty: where the engine looks when the container's path is not the host's. */
const elsewhere = mkdtempSync(join(root, "elsewhere-"));
const asRoot = process.getuid?.() === 0;
if (asRoot) chownSync(staging, ORCHESTRATOR_UID, ORCHESTRATOR_UID);
const socketGroup = String(statSync(SOCKET).gid);

beforeAll(useCurrentOrchestratorImage, 600_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Starts the image as compose would, with these extra `docker run` words; resolves with its exit code and what it said. */
function start(...words: string[]): { code: number | null; said: string } {
  const ran = spawnSync(
    "docker",
    [
      "run",
      "--rm",
      "--network",
      "none",
      "--read-only",
      "--tmpfs",
      "/tmp",
      "--cap-drop",
      "ALL",
      "--security-opt",
      "no-new-privileges",
      ...words,
      ORCHESTRATOR_IMAGE,
    ],
    {
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return { code: ran.status, said: `${ran.stdout}${ran.stderr}` };
}

const withSocket = ["--volume", `${SOCKET}:${SOCKET}`, "--group-add", socketGroup];

describe("the orchestrator's entry", () => {
  it("refuses to start without AGENTCAGE_RUNTIME_DIR, naming it", () => {
    expect(start(...withSocket)).toEqual({ code: 1, said: expect.stringContaining("AGENTCAGE_RUNTIME_DIR is not set; set it in .env") });
  });

  it("refuses a Staging Directory that is not mounted into the container", () => {
    const { code, said } = start(...withSocket, "--env", "AGENTCAGE_RUNTIME_DIR=/var/lib/agentcage");
    expect(code).toBe(1);
    expect(said).toContain("AGENTCAGE_RUNTIME_DIR=/var/lib/agentcage is not mounted into this container; mount the host's /var/lib/agentcage at the same path");
  });

  it.runIf(asRoot)("refuses a Staging Directory it cannot write, saying how to make it", () => {
    const locked = mkdtempSync(join(root, "locked-"));
    const { code, said } = start(...withSocket, "--env", `AGENTCAGE_RUNTIME_DIR=${locked}`, "--volume", `${locked}:${locked}`);
    expect(code).toBe(1);
    expect(said).toContain(
      `is not a directory uid ${ORCHESTRATOR_UID} can write; on the host: install -d -o ${ORCHESTRATOR_UID} -g ${ORCHESTRATOR_UID} -m 0700 ${locked}`,
    );
  });

  it("refuses a docker socket it cannot use, naming the DOCKER_GID to set", () => {
    const { code, said } = start("--volume", `${SOCKET}:${SOCKET}`, "--env", `AGENTCAGE_RUNTIME_DIR=${staging}`, "--volume", `${staging}:${staging}`);
    expect(code).toBe(1);
    expect(said).toContain(`cannot use ${SOCKET}, which belongs to group ${socketGroup}; set DOCKER_GID=${socketGroup} in .env`);
  });

  it.runIf(asRoot)("refuses a secret file it cannot read", () => {
    const secret = join(root, "unreadable-token");
    writeFileSync(secret, "a-token-nobody-may-read\n", { mode: 0o400 });
    const { code, said } = start(
      ...withSocket,
      "--env",
      `AGENTCAGE_RUNTIME_DIR=${staging}`,
      "--volume",
      `${staging}:${staging}`,
      "--volume",
      `${secret}:/run/secrets/agentcage_token:ro`,
    );
    expect(code).toBe(1);
    expect(said).toContain(`the secret /run/secrets/agentcage_token is not readable by uid ${ORCHESTRATOR_UID}`);
  });

  it("refuses a switch that is neither 0 nor 1", () => {
    const { code, said } = start(...withSocket, "--env", "AGENTCAGE_STAND_IN=yes");
    expect(code).toBe(1);
    expect(said).toContain("AGENTCAGE_STAND_IN=yes is neither 1 (on) nor 0 (off)");
  });

  it("does not serve when the Staging Directory is mounted at another path than the host's: agentcage doctor fails", () => {
    const { code, said } = start(
      ...withSocket,
      "--env",
      `AGENTCAGE_RUNTIME_DIR=${elsewhere}`,
      "--volume",
      `${staging}:${elsewhere}`,
      "--env",
      "AGENTCAGE_TOKEN=entry-test-token-0123456789",
    );
    expect(code).toBe(1);
    expect(said).toMatch(/FAIL +staging on engine +.*the engine resolves .* to another directory/);
    expect(said).toContain("agentcage doctor found a problem (above); fix it, or set AGENTCAGE_DOCTOR=0");
    expect(said).not.toContain("listening");
  }, 60_000);
});
