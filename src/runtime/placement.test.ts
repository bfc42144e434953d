// A Run's environment and own network decided once it is placed (atPlacement): asked with the
// engine it was placed on, made on that engine alone, its values masked; a refusal there ends the
// Run unavailable, naming the engine, before anything of it is made.

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { createEngineSet, type EngineSet } from "../subpaths/runtime.js";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { collectStdout, type Collected } from "../../test/support/engine.js";

const silent = pino({ level: "silent" });
const sets: EngineSet[] = [];
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
});

const TOKEN_OF = (engine: string | undefined) => `token-of-${engine}-7f3a9c2e51d04b86`;

describe("a Run readied where it is placed (atPlacement)", () => {
  it("is asked with the engine's name, and its network and environment are made there alone, masked", async () => {
    // The agent prints the token it was handed: the Outcome shows it masked.
    const a = createFakeEngine({ stdout: [`${TOKEN_OF("a")}\n`] });
    const b = createFakeEngine({ stdout: [`${TOKEN_OF("b")}\n`] });
    const set = createEngineSet([
      { name: "a", engine: a, maxConcurrentRuns: 1 },
      { name: "b", engine: b, maxConcurrentRuns: 1 },
    ]);
    sets.push(set);
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: () => ({ args: ["agent"], stdin: "", outcome: collectStdout }),
      engines: set,
    });
    const asked: Array<string | undefined> = [];
    const outcome = await runtime.run(
      { text: "" },
      {
        atPlacement: async (engine) => {
          asked.push(engine);
          return { env: { RUN_TOKEN: TOKEN_OF(engine) }, network: { kind: "internal", attach: { container: `egress-${engine}`, alias: "egress" } } };
        },
      },
    );
    expect(outcome, outcome.error).toMatchObject({ ok: true, reason: "completed" });
    expect(asked).toEqual(["a"]);
    expect(a.calls).toContain(`connectNetwork agentcage-net-${outcome.runId} egress-a`);
    expect(b.calls.filter((call) => !/^(ping|hasImage|listByLabel|listNetworks|listVolumes)/.test(call))).toEqual([]);
    const printed = Buffer.from((outcome.result as Collected).bytes).toString();
    expect(printed).not.toContain(TOKEN_OF("a"));
  });

  it("ends the Run unavailable, naming the engine and masking what it was handed, when it cannot be readied there", async () => {
    const a = createFakeEngine();
    const set = createEngineSet([{ name: "a", engine: a }]);
    sets.push(set);
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: () => ({ args: ["agent"], stdin: "", outcome: collectStdout }),
      engines: set,
    });
    const outcome = await runtime.run(
      { text: "" },
      {
        env: { CALLER_SECRET: "sk-caller-secret-0123456789" },
        atPlacement: async () => {
          throw new Error("the egress proxy of a is gone (sk-caller-secret-0123456789)");
        },
      },
    );
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toMatch(/^the Run could not be readied on the engine "a": the egress proxy of a is gone/);
    expect(outcome.error).not.toContain("sk-caller-secret-0123456789");
    expect(a.calls.filter((call) => /^(create|createNetwork) /.test(call))).toEqual([]);
  });

  it("is refused as invalid_request when it is not a function", async () => {
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: () => ({ args: ["agent"], stdin: "", outcome: collectStdout }),
      engine: createFakeEngine(),
    });
    const outcome = await runtime.run({ text: "" }, { atPlacement: "egress" as never });
    expect(outcome).toMatchObject({ reason: "invalid_request", error: expect.stringMatching(/^atPlacement "egress" is not a function/) });
  });
});
