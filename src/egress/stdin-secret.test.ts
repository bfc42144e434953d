// The control secret on the proxy's stdin: its first line, the switch refused when it cannot mean
// anything, and a stdin that never says it refused in time, never with what it held.

import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { egressConfigFromEnvironment } from "./environment.js";
import { MAX_CONTROL_SECRET_BYTES } from "./limits.js";
import { readSecretLine } from "./stdin-secret.js";

const SECRET = "t".repeat(43);
const ON = { AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN: "1" };

describe("the control secret on stdin", () => {
  it("is the first line of stdin, whatever the chunks, and the rest is not read", async () => {
    for (const size of [1, 2, 7, 64, 1000]) {
      const text = `${SECRET}\nnot this\n`;
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
      const config = await egressConfigFromEnvironment(ON, () => Readable.from(chunks));
      expect(config.control).toEqual({ socketPath: "/run/agentcage/egress.sock", secret: SECRET });
    }
  });

  it("is all of stdin when it ends without a newline", async () => {
    expect(await readSecretLine(Readable.from([SECRET]), "X")).toBe(SECRET);
  });

  it("is not read at all without the switch, nor with it off", async () => {
    let asked = false;
    const stdin = (): Readable => {
      asked = true;
      return Readable.from([SECRET]);
    };
    await expect(egressConfigFromEnvironment({ AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN: "0" }, stdin)).rejects.toThrow(/SECRET_FILE is not set/);
    expect(asked).toBe(false);
  });

  it.each([
    [{ AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN: "yes" }, /^AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN "yes" is neither 1 \(on\) nor 0 \(off\)/],
    [{ ...ON, AGENTCAGE_EGRESS_CONTROL_SECRET_FILE: "/run/secret" }, /SECRET_FILE and AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN are both set/],
  ])("refuses %j naming the variable", async (env, message) => {
    await expect(egressConfigFromEnvironment(env, () => Readable.from([`${SECRET}\n`]))).rejects.toThrow(message);
  });

  it("refuses a stdin that says nothing in time, or no line within the bound, without quoting it", async () => {
    await expect(readSecretLine(new PassThrough(), "AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN", 50)).rejects.toThrow(
      /no control secret came on stdin within 50 ms/,
    );
    const endless = "u".repeat(MAX_CONTROL_SECRET_BYTES + 1);
    const refused = readSecretLine(Readable.from([endless]), "AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN");
    await expect(refused).rejects.toThrow(new RegExp(`stdin holds no line within ${MAX_CONTROL_SECRET_BYTES} bytes`));
    await expect(refused).rejects.not.toThrow(/uuuu/);
  });
});
