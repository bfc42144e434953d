// No secret value in any loggable text: env values smuggled through extraArgs are hidden in the
// redacted argv in every form docker accepts, and the masker hides registered values anywhere.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { RunPlanFunction } from "../plan/index.js";
import { createAgentContainerRuntime, REDACTED, type AgentContainer } from "./index.js";
import { MIN_MASKED_VALUE_LENGTH } from "./limits.js";
import { createMasker } from "./redact.js";
import { cliExtraArgs } from "./extra-args.js";

const plan: RunPlanFunction = () => ({ args: ["sample-agent"], stdin: "", outcome: async () => ({ ok: true }) });
const silent = pino({ level: "silent" });

function commandFor(container: AgentContainer) {
  return createAgentContainerRuntime({ container: { logger: silent, ...container }, run: plan }).commandFor({ text: "hi" });
}

/** The words from the first extraArgs word up to the image, where extraArgs are spliced. */
function extraWords(args: readonly string[], image: string): string[] {
  const afterLabels = args.lastIndexOf("agentcage.owner=agentcage") + 1;
  return args.slice(afterLabels, args.lastIndexOf(image));
}

describe("cliExtraArgs", () => {
  it("turns every env assignment form into --env NAME, so no value is in argv", () => {
    expect(cliExtraArgs(["-e", "A=alpha-secret", "--env", "B=beta-secret", "--env=C=gamma-secret", "-eD=delta-secret"])).toEqual([
      "--env", "A", "--env", "B", "--env", "C", "--env", "D",
    ]);
  });

  it("keeps words that are not env assignments as written", () => {
    const words = ["--label", "a=b", "--hostname", "h", "-w", "/work", "--workdir=/x"];
    expect(cliExtraArgs(words)).toEqual(words);
  });

  it("parses as run() does, so a flag's value that looks like -e cannot shield the next env value", () => {
    expect(cliExtraArgs(["--hostname", "-e", "--env", "TOKEN=supersecret"])).toEqual(["--hostname", "-e", "--env", "TOKEN"]);
  });
});

describe("commandFor", () => {
  const extraArgs = ["-e", "A=alpha-secret", "--env", "B=beta-secret", "--env=C=gamma-secret", "-eD=delta-secret"];

  it("carries values smuggled through extraArgs, in every form, only in the client's env", () => {
    const command = commandFor({ image: "agent:1", extraArgs });
    expect(extraWords(command.args, "agent:1")).toEqual(["--env", "A", "--env", "B", "--env", "C", "--env", "D"]);
    expect(extraWords(command.redactedArgs, "agent:1")).toEqual(["--env", "A", "--env", "B", "--env", "C", "--env", "D"]);
    expect(command.env).toEqual({ A: "alpha-secret", B: "beta-secret", C: "gamma-secret", D: "delta-secret" });
  });

  it("masks a secret a plan passes as an argument in redactedArgs, and only there", () => {
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, env: { API_KEY: "sk-live-0123456789abcdef" } },
      run: () => ({ args: ["--key", "sk-live-0123456789abcdef"], stdin: "", outcome: async () => ({ ok: true }) }),
    });
    const command = runtime.commandFor({ text: "" });
    expect(command.args.at(-1)).toBe("sk-live-0123456789abcdef");
    expect(command.redactedArgs.at(-1)).toBe(REDACTED);
  });

  it("never carries a declared env value, in args or redactedArgs", () => {
    const env = { API_KEY: "sk-live-0123456789abcdef", OTHER_TOKEN: "tok-fedcba9876543210" };
    const command = commandFor({ image: "agent:1", env, extraArgs: ["-e", "MODE=fast"] });
    for (const words of [command.args, command.redactedArgs]) {
      const text = JSON.stringify(words);
      expect(text).not.toContain("sk-live-0123456789abcdef");
      expect(text).not.toContain("tok-fedcba9876543210");
    }
    expect(command.env).toEqual({ ...env, MODE: "fast" });
  });

  it("hides an env value even when the entrypoint word before extraArgs is --env", () => {
    const { args } = commandFor({ image: "agent:1", entrypoint: ["--env"], extraArgs: ["-e", "TOKEN=supersecret"] });
    expect(JSON.stringify(args)).not.toContain("supersecret");
  });
});

describe("createMasker", () => {
  it("masks every occurrence of a registered value", () => {
    const masker = createMasker(["hunter2-password"]);
    expect(masker.mask("a hunter2-password b hunter2-password")).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("masks values registered later with add", () => {
    const masker = createMasker();
    masker.add("sk-added-later");
    expect(masker.mask("key=sk-added-later")).toBe(`key=${REDACTED}`);
  });

  it("hides the longer of two secrets whole when one contains the other", () => {
    const masker = createMasker(["secret", "secret-and-more"]);
    expect(masker.mask("x secret-and-more y secret z")).toBe(`x ${REDACTED} y ${REDACTED} z`);
  });

  it("ignores values shorter than MIN_MASKED_VALUE_LENGTH", () => {
    const short = "a".repeat(MIN_MASKED_VALUE_LENGTH - 1);
    const long = "b".repeat(MIN_MASKED_VALUE_LENGTH);
    const masker = createMasker([short, long, ""]);
    expect(masker.mask(`${short} ${long}`)).toBe(`${short} ${REDACTED}`);
  });

  it("leaves text alone when nothing is registered", () => {
    expect(createMasker().mask("nothing to hide")).toBe("nothing to hide");
  });

  it("masks strings nested in objects and arrays, and keys", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    const value = {
      error: "auth failed for sk-live-0123456789",
      count: 3,
      ok: false,
      none: null,
      nested: { list: ["plain", "Bearer sk-live-0123456789", 7], "sk-live-0123456789": "as a key" },
    };
    expect(masker.maskDeep(value)).toEqual({
      error: `auth failed for ${REDACTED}`,
      count: 3,
      ok: false,
      none: null,
      nested: { list: ["plain", `Bearer ${REDACTED}`, 7], [REDACTED]: "as a key" },
    });
    expect(value.error).toBe("auth failed for sk-live-0123456789");
  });

  it("masks a bare string and an array with maskDeep", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    expect(masker.maskDeep("x sk-live-0123456789")).toBe(`x ${REDACTED}`);
    expect(masker.maskDeep(["sk-live-0123456789", 1])).toEqual([REDACTED, 1]);
  });
});

describe("createMasker on what readers return", () => {
  it("masks a secret inside a Buffer or Uint8Array, byte for byte", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    const masked = masker.maskDeep({ bytes: Buffer.from("a sk-live-0123456789 b"), raw: new TextEncoder().encode("sk-live-0123456789") });
    expect(masked.bytes.toString()).toBe(`a ${REDACTED} b`);
    expect(Buffer.from(masked.raw).toString()).toBe(REDACTED);
  });

  it("masks an Error's message and objects without a prototype", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { key: "sk-live-0123456789" });
    expect(masker.maskDeep(new Error("bad sk-live-0123456789")).message).toBe(`bad ${REDACTED}`);
    expect(masker.maskDeep(bare)).toEqual({ key: REDACTED });
  });

  it("masks the escaped spelling of a secret, as JSON or Go quote it", () => {
    const masker = createMasker(['pa"ss\\word-1']);
    expect(masker.mask(JSON.stringify({ v: 'pa"ss\\word-1' }))).toBe(`{"v":"${REDACTED}"}`);
  });
});
