// No secret value in any loggable text: env values smuggled through extraArgs become `--env NAME`
// in every form docker accepts, so the value never reaches an argv.

import { describe, expect, it } from "vitest";
import { cliExtraArgs } from "./extra-args.js";
describe("cliExtraArgs", () => {
  it("turns every env assignment form into --env NAME, so no value is in argv", () => {
    expect(cliExtraArgs(["-e", "A=alpha-secret", "--env", "B=beta-secret", "--env=C=gamma-secret", "-eD=delta-secret"])).toEqual([
      "--env",
      "A",
      "--env",
      "B",
      "--env",
      "C",
      "--env",
      "D",
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
