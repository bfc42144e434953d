// No secret value in any loggable text: env values smuggled through extraArgs are hidden in the
// redacted argv in every form docker accepts, and the masker hides registered values anywhere.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { RunPlanFunction } from "../plan/index.js";
import { createAgentContainerRuntime, REDACTED, type AgentContainer } from "./index.js";
import { MIN_MASKED_VALUE_LENGTH } from "./limits.js";
import { createMasker } from "./redact.js";
import { redactExtraArgs } from "./extra-args.js";

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

describe("redactExtraArgs", () => {
  it("hides the value of every env assignment form and keeps the names", () => {
    expect(redactExtraArgs(["-e", "A=alpha-secret", "--env", "B=beta-secret", "--env=C=gamma-secret", "-eD=delta-secret"])).toEqual([
      "-e", `A=${REDACTED}`, "--env", `B=${REDACTED}`, `--env=C=${REDACTED}`, `-eD=${REDACTED}`,
    ]);
  });

  it("keeps words that are not env values", () => {
    const words = ["--label", "a=b", "--hostname", "h", "-w", "/work", "--workdir=/x"];
    expect(redactExtraArgs(words)).toEqual(words);
  });

  it("hides an empty value too", () => {
    expect(redactExtraArgs(["-e", "EMPTY=", "--env=ALSO="])).toEqual(["-e", `EMPTY=${REDACTED}`, `--env=ALSO=${REDACTED}`]);
  });

  it("parses as run() does, so a flag's value that looks like -e cannot shield the next env value", () => {
    expect(redactExtraArgs(["--hostname", "-e", "--env", "TOKEN=supersecret"])).toEqual(["--hostname", "-e", "--env", `TOKEN=${REDACTED}`]);
  });
});

describe("commandFor's redactedArgs", () => {
  const extraArgs = ["-e", "A=alpha-secret", "--env", "B=beta-secret", "--env=C=gamma-secret", "-eD=delta-secret"];

  it("hides values smuggled through extraArgs in every form", () => {
    const { redactedArgs } = commandFor({ image: "agent:1", extraArgs });
    expect(extraWords(redactedArgs, "agent:1")).toEqual([
      "-e", `A=${REDACTED}`, "--env", `B=${REDACTED}`, `--env=C=${REDACTED}`, `-eD=${REDACTED}`,
    ]);
  });

  it("is args with only those values replaced", () => {
    const { args, redactedArgs } = commandFor({ image: "agent:1", extraArgs });
    expect(extraWords(args, "agent:1")).toEqual(extraArgs);
    expect(redactedArgs).toEqual(
      args.map((w) => w.replace(/(alpha|beta|gamma|delta)-secret$/, REDACTED)),
    );
  });

  it("never carries a declared env value, in args or redactedArgs", () => {
    const env = { API_KEY: "sk-live-0123456789abcdef", OTHER_TOKEN: "tok-fedcba9876543210" };
    const command = commandFor({ image: "agent:1", env, extraArgs: ["-e", "MODE=fast"] });
    for (const words of [command.args, command.redactedArgs]) {
      const text = JSON.stringify(words);
      expect(text).not.toContain("sk-live-0123456789abcdef");
      expect(text).not.toContain("tok-fedcba9876543210");
    }
    expect(command.env).toEqual(env);
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

describe("commandFor's redactedArgs next to an entrypoint", () => {
  it("hides an env value even when the entrypoint word before extraArgs is --env", () => {
    const { redactedArgs } = commandFor({ image: "agent:1", entrypoint: ["--env"], extraArgs: ["-e", "TOKEN=supersecret"] });
    expect(JSON.stringify(redactedArgs)).not.toContain("supersecret");
  });
});
