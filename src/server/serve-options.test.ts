// serve's refusals of options that cannot go together come before it writes anything: a runtime
// directory handed to a refused serve is left as it was (no service/, no generated token).

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ServeError, serve, type ServeOptions } from "./index.js";

let runtimeDir: string;
beforeEach(() => {
  runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-serve-options-"));
});
afterEach(() => rmSync(runtimeDir, { recursive: true, force: true }));

describe("serve's network options", () => {
  it.each([
    [{ networkPolicy: "bogus" }, '--network-policy "bogus" is not a policy; write one of none, model, allowlist, open'],
    [
      { networkPolicy: "none", agentNetworks: ["bridge"] },
      "--network-policy none and --agent-network bridge were both given; choose a policy, or declare networks by hand, not both",
    ],
    [{ networkPolicy: "open", standIn: true }, '--stand-in puts the agent on the stand-in model\'s own network, so --network-policy "open" cannot go with it'],
  ] as const)("refuses %j before writing anything in the runtime directory", async (given, message) => {
    const options = { runtimeDir, port: 0, environment: {}, logger: pino({ level: "silent" }), ...given } as ServeOptions;
    const refusal = await serve(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServeError);
    expect((refusal as Error).message).toContain(message);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});
