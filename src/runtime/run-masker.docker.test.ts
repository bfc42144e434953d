// A canary secret handed to the agent through `env` reaches the agent and nothing else: no argv
// on the host, no log line, no Outcome, no container label, even when the agent prints it.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime, REDACTED } from "../index.js";
import { TEST_IMAGE, capturingLogger, docker } from "../../test/support/engine.js";

const CANARY = "canary-7f3a9c1e5b2d4680-secret";

describe("a secret in env", () => {
  it("reaches the agent but no argv, log line, Outcome or label, even when the agent prints it", async () => {
    const { logger, lines } = capturingLogger();
    const seen: { argv: string; labels: string } = { argv: "", labels: "" };
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger, env: { API_TOKEN: CANARY } },
      run: () => ({
        // The agent proves it has the value (by its hash), then leaks it on both streams.
        args: ["sh", "-c", 'printf %s "$API_TOKEN" | sha256sum; echo "leak:$API_TOKEN"; echo "leak:$API_TOKEN" >&2; sleep 1'],
        stdin: "",
        outcome: async (stdout) => {
          let text = "";
          for await (const chunk of stdout) {
            text += Buffer.from(chunk).toString();
            if (seen.argv === "") {
              seen.argv = execFileSync("ps", ["-eww", "-o", "args"], { encoding: "utf8" });
              seen.labels = docker("ps", "--all", "--filter", "label=agentcage.owner=agentcage", "--format", "{{json .Labels}}");
            }
          }
          return { ok: false, error: `the agent said ${text.split("\n")[1] ?? ""}`, text };
        },
      }),
    });
    const command = runtime.commandFor({ text: "" });
    const outcome = await runtime.run({ text: "" });

    const digest = createHash("sha256").update(CANARY).digest("hex");
    expect(outcome.result?.text.startsWith(digest)).toBe(true);
    expect(outcome.result?.text).toContain(`leak:${REDACTED}`);
    expect(outcome.stderr).toBe(`leak:${REDACTED}\n`);
    expect(outcome.error).toContain(`the agent said leak:${REDACTED}`);

    expect(seen.argv).toContain("sha256sum");
    expect(seen.argv).not.toContain(CANARY);
    expect(seen.labels).toContain("agentcage.run");
    expect(seen.labels).not.toContain(CANARY);
    expect(JSON.stringify(outcome)).not.toContain(CANARY);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.join("\n")).not.toContain(CANARY);
    expect(JSON.stringify(command.args)).not.toContain(CANARY);
    expect(JSON.stringify(command.redactedArgs)).not.toContain(CANARY);
    expect(command.env).toEqual({ API_TOKEN: CANARY });
  });
});
