// An engine reached as a remote one is: dockerd of the test's own behind TCP with TLS client
// certificates (--tlsverify), on the far end of a veth link, named as `--engine` takes it
// (`tcp://IP:2376,name=tls,certs=DIR`). A Run is staged, run and harvested through it with its files
// through the engine; a client whose certificate another CA signed, or one with no certificate at
// all, is refused by the daemon, and a Run then ends unavailable naming the engine and why.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import type { EngineSet } from "../../subpaths/runtime.js";
import { engineSetOf } from "../index.js";
import { commandEnv, runCommand } from "../../../test/support/command.js";
import { TEST_IMAGE, capturingLogger, collectStdout } from "../../../test/support/engine.js";
import { loadTestImage } from "../../../test/support/extra-engine.js";
import { tlsEngine, type TlsEngine } from "../../../test/support/tls-engine.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-engine-tls-"));
const owner = `engine-tls-test-${process.pid}`;
let engine: TlsEngine | undefined;
const sets: EngineSet[] = [];

beforeAll(async () => {
  engine = tlsEngine(root, "act", 7);
  await engine.start();
  loadTestImage(engine);
}, 120_000);

afterAll(async () => {
  for (const set of sets) set.close();
  await engine?.remove();
  rmSync(root, { recursive: true, force: true });
}, 120_000);

/** A runtime over the one engine `address` names, its Run's files through the engine. */
function runtimeOver(address: string) {
  const set = engineSetOf([address], "--engine", 1);
  sets.push(set);
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, owner, logger: capturingLogger().logger, staging: { runtimeDir: mkdtempSync(join(root, "runs-")) } },
    run: () => ({ args: ["sh", "-c", "cat a.txt; echo 42 > out/answer.txt"], stdin: "", outcome: collectStdout }),
    engines: set,
    runFiles: "engine",
  });
  return { runtime };
}

function inputs(): string {
  const directory = mkdtempSync(join(root, "inputs-"));
  writeFileSync(join(directory, "a.txt"), "one\n");
  return directory;
}

describe("an engine over TCP with TLS client certificates", () => {
  it("runs a Run through it, its files in and out through the engine, and leaves nothing there", async () => {
    const tls = engine as TlsEngine;
    const { runtime } = runtimeOver(`${tls.tcpAddress},name=tls,certs=${tls.certs}`);
    expect((await runtime.check()).engines?.map((one) => [one.name, one.engine, one.image])).toEqual([["tls", true, true]]);
    const harvestTo = join(root, "harvest");
    const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs() }, harvestTo, timeoutSeconds: 60 });
    expect(outcome, outcome.error).toMatchObject({ ok: true, reason: "completed" });
    expect(Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString()).toBe("one\n");
    expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
    const left = ["ps --all", "network ls", "volume ls"].flatMap((what) =>
      tls.docker(...what.split(" "), "--quiet", "--filter", `label=agentcage.owner=${owner}`).split("\n"),
    );
    expect(left.filter((line) => line !== "")).toEqual([]);
  }, 120_000);

  it("is refused to a client whose certificate another CA signed: the Run ends unavailable, naming the engine", async () => {
    const tls = engine as TlsEngine;
    const { runtime } = runtimeOver(`${tls.tcpAddress},name=tls,certs=${tls.strangerCerts}`);
    const [check] = (await runtime.check()).engines ?? [];
    expect(check).toMatchObject({ name: "tls", engine: false });
    expect(check?.why).toMatch(/^TLS: the engine refused this client's certificate/);
    const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs() }, timeoutSeconds: 60 });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toContain('"tls" does not answer (TLS: the engine refused this client\'s certificate');
    // Where the certificate came from is said; no certificate's or key's content is.
    expect(outcome.error).not.toMatch(/BEGIN|PRIVATE KEY/);
  }, 60_000);

  it("is refused to a client with no certificate (plain HTTP to a TLS port), saying so", async () => {
    const tls = engine as TlsEngine;
    const { runtime } = runtimeOver(`${tls.tcpAddress},name=plain`);
    const [check] = (await runtime.check()).engines ?? [];
    expect(check).toMatchObject({ name: "plain", engine: false });
    expect(check?.why).toMatch(/^the engine speaks TLS and was sent plain HTTP; add certs=DIR/);
  }, 60_000);

  it("is said by agentcage doctor --engine: one that answers, one refusing this client's certificate, each with what to do", async () => {
    const tls = engine as TlsEngine;
    const done = await runCommand(
      ["doctor", "--engine", `${tls.tcpAddress},name=tls,certs=${tls.certs}`, "--engine", `${tls.tcpAddress},name=stranger,certs=${tls.strangerCerts}`],
      commandEnv({ NO_COLOR: "1", AGENTCAGE_RUNTIME_DIR: mkdtempSync(join(root, "doctor-")) }),
    );
    const lines = done.stdout.split("\n").map((line) => line.replace(/\s+/g, " "));
    expect(
      lines.find((line) => / engine tls /.test(line)),
      done.stdout,
    ).toMatch(/^ok engine tls .* at engine "tls"$/);
    expect(
      lines.find((line) => / engine stranger /.test(line)),
      done.stdout,
    ).toMatch(/^FAIL engine stranger .*TLS: the engine refused this client's certificate .*; fix: mend the engine's TLS certificates as said above$/);
    expect(done.code).toBe(1);
  }, 60_000);
});
