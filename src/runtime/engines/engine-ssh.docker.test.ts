// An engine reached over ssh:// as a remote one is: an SSH server of the test's own that takes only
// the test's key and answers `docker system dial-stdio` with this host's engine, the key in an
// ssh-agent of the test's own, the server's key in known_hosts. A Run goes through it; a host key
// other than the one known_hosts holds (a machine in the middle) and a key the host does not take
// are refused before anything is sent, each said with what to do.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import type { EngineSet } from "../../subpaths/runtime.js";
import { TEST_IMAGE, capturingLogger, collectStdout, docker } from "../../../test/support/engine.js";
import { type SshEngine, sshEngine } from "../../../test/support/ssh-engine.js";
import { connectionMessage, createDockerEngine } from "../../engine/index.js";
import { engineSetOf } from "../index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-engine-ssh-"));
const owner = `engine-ssh-test-${process.pid}`;
let ssh: SshEngine | undefined;
const sets: EngineSet[] = [];
const saved = { HOME: process.env["HOME"], SSH_AUTH_SOCK: process.env["SSH_AUTH_SOCK"], DOCKER_HOST: process.env["DOCKER_HOST"] };

beforeAll(async () => {
  ssh = await sshEngine(root, "/var/run/docker.sock");
}, 60_000);

afterAll(async () => {
  for (const set of sets) set.close();
  await ssh?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(root, { recursive: true, force: true });
}, 60_000);

/** A runtime over the one engine the ssh address names, as a process with this HOME and ssh-agent sees it. */
function runtimeOver(home: string, agentSocket: string) {
  process.env["HOME"] = home;
  process.env["SSH_AUTH_SOCK"] = agentSocket;
  const set = engineSetOf([`${(ssh as SshEngine).address},name=ssh`], "--engine", 1);
  sets.push(set);
  return createAgentContainerRuntime({
    container: { image: TEST_IMAGE, owner, logger: capturingLogger().logger, staging: { runtimeDir: mkdtempSync(join(root, "runs-")) } },
    run: () => ({ args: ["sh", "-c", "echo over ssh"], stdin: "", outcome: collectStdout }),
    engines: set,
  });
}

describe("an engine over ssh://", () => {
  it("runs a Run through it, each engine call over `docker system dial-stdio`, and leaves nothing", async () => {
    const s = ssh as SshEngine;
    const runtime = runtimeOver(s.home, s.agentSocket);
    expect((await runtime.check()).engines?.map((one) => [one.name, one.engine, one.image])).toEqual([["ssh", true, true]]);
    const outcome = await runtime.run({ text: "" }, { timeoutSeconds: 60 });
    expect(outcome, outcome.error).toMatchObject({ ok: true, reason: "completed" });
    expect(Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString()).toBe("over ssh\n");
    expect(new Set(s.commands)).toEqual(new Set(["docker system dial-stdio"]));
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.owner=${owner}`)).toBe("");
  }, 120_000);

  it("refuses a host whose key is not the one known_hosts holds, before anything is sent", async () => {
    const s = ssh as SshEngine;
    // The earlier runtime's set pings the host every second over ssh: stopped, so what is counted is this one's.
    for (const set of sets) set.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = s.commands.length;
    const runtime = runtimeOver(s.strangerHome, s.agentSocket);
    const [check] = (await runtime.check()).engines ?? [];
    expect(check).toMatchObject({ name: "ssh", engine: false });
    expect(check?.why).toMatch(/^ssh: the engine's host key is not one ~\/\.ssh\/known_hosts holds for its host and port/);
    const outcome = await runtime.run({ text: "" }, { timeoutSeconds: 60 });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toContain('"ssh" does not answer (ssh: the engine\'s host key is not one');
    // Not even a command: the client hung up at the key.
    expect(s.commands.length).toBe(before);
  }, 60_000);

  it("is refused by a host that takes none of this process's keys, saying which agent to load", async () => {
    const s = ssh as SshEngine;
    const runtime = runtimeOver(s.home, s.strangerAgentSocket);
    const [check] = (await runtime.check()).engines ?? [];
    expect(check).toMatchObject({ name: "ssh", engine: false });
    expect(check?.why).toMatch(/^ssh: the engine's host took none of this process's keys; load the key .* \(ssh-add KEY\)/);
  }, 60_000);

  it("holds DOCKER_HOST=ssh://... to known_hosts too, where dockerode alone would take any host key", async () => {
    const s = ssh as SshEngine;
    process.env["HOME"] = s.strangerHome;
    process.env["SSH_AUTH_SOCK"] = s.agentSocket;
    process.env["DOCKER_HOST"] = s.address;
    try {
      await expect(connectionMessageOf(createDockerEngine().ping())).resolves.toMatch(/^ssh: the engine's host key is not one ~\/\.ssh\/known_hosts holds/);
      process.env["HOME"] = s.home;
      await expect(createDockerEngine().ping()).resolves.toBeUndefined();
    } finally {
      delete process.env["DOCKER_HOST"];
    }
  }, 60_000);
});

/** What a failed call's error says, in the words an engine's refusal is given. */
async function connectionMessageOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "it answered";
  } catch (error) {
    return connectionMessage(error);
  }
}
