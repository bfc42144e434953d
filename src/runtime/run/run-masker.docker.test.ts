// A canary secret handed to the agent through `env` reaches the agent and nothing else: no argv
// on the host, no log line, no Outcome, no container label, even when the agent prints it, and
// neither it nor a token of a secret file shows through base64, hex or percent-encoding.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { REDACTED } from "../../subpaths/runtime.js";
import { TEST_IMAGE, capturingLogger, collectStdout, docker } from "../../../test/support/engine.js";

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

describe("an encoded secret", () => {
  const scratch = mkdtempSync(join(tmpdir(), "agentcage-encoded-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  // Its base64 holds "+" or "/" at each alignment, and percent-encoding changes it.
  const KEY = "canary~>?7f3a+9c1e/5b2d=4680";
  const TOKEN = "rt-canary-refresh-0b9d8c7e6f";
  const AUTH = `${JSON.stringify({ tokens: { refresh_token: TOKEN, access_token: "at-canary-access-1a2b3c4d5e" } }, null, 2)}\n`;
  const CREDENTIALS = "[default]\naws_secret_access_key = ini-canary-line-9f8e7d6c5b\n";
  // Longer than the other values, so its percent-encoding (three characters a byte) is longer than any of them.
  const PIN = `pin-canary-${"0123456789abcdef".repeat(6)}`;
  const hex = (text: string) => Buffer.from(text).toString("hex");
  // Half way through the pin with every byte percent-encoded.
  const SPLIT_AT = Math.floor((3 * PIN.length) / 2);

  // Each line is `<label>:<what the agent printed>`; the last comes in two writes a second apart.
  const script = [
    'echo "len:${#KEY}"',
    'echo "b64-0:$(printf %s "$KEY" | base64)"',
    'echo "b64-1:$(printf x%s "$KEY" | base64)"',
    'echo "b64-2:$(printf xx%s "$KEY" | base64)" >&2',
    `echo "b64url:$(printf x%s "$KEY" | base64 | tr '+/' '-_' | tr -d '=')"`,
    `echo "hex:$(printf %s "$KEY" | hexdump -ve '1/1 "%02x"')"`,
    `echo "HEX:$(printf %s "$KEY" | hexdump -ve '1/1 "%02X"')" >&2`,
    `echo "url:$(printf %s "$KEY" | sed 's|>|%3E|g; s|?|%3F|g; s|+|%2B|g; s|/|%2F|g; s|=|%3D|g')"`,
    `echo "pct:$(printf %s "$KEY" | hexdump -ve '1/1 "%02X"' | sed 's/../%&/g')" >&2`,
    `T=$(sed -n 's/.*"refresh_token": "\\([^"]*\\)".*/\\1/p' /tmp/auth.json)`,
    'echo "token:$T"; echo "token:$T" >&2',
    'echo "token-b64:$(printf x%s "$T" | base64)"',
    'echo "line:$(sed -n 2p /tmp/credentials)" >&2',
    // Longer than any value registered, so only a hold-back as long as the longest spelling keeps it whole.
    `P=$(hexdump -ve '1/1 "%02X"' /tmp/pin | sed 's/../%&/g'); printf 'split:%s' "\${P:0:${SPLIT_AT}}"; sleep 1; printf '%s\\n' "\${P:${SPLIT_AT}}"`,
    `printf 'split:%s' "\${P:0:${SPLIT_AT}}" >&2; sleep 1; printf '%s\\n' "\${P:${SPLIT_AT}}" >&2`,
  ].join("\n");

  // What the agent printed, as this process would spell it; each is all secret but for at most
  // its first and last few characters (those that also carry bits of what surrounds the secret).
  const printed = [
    Buffer.from(KEY).toString("base64"),
    Buffer.from(`x${KEY}`).toString("base64"),
    Buffer.from(`xx${KEY}`).toString("base64"),
    Buffer.from(`x${KEY}`).toString("base64url"),
    hex(KEY),
    hex(KEY).toUpperCase(),
    encodeURIComponent(KEY),
    hex(KEY).toUpperCase().replace(/../g, "%$&"),
    TOKEN,
    Buffer.from(`x${TOKEN}`).toString("base64"),
    "aws_secret_access_key = ini-canary-line-9f8e7d6c5b",
    hex(PIN).toUpperCase().replace(/../g, "%$&"),
  ];

  it("shows in no Outcome, log line or record file, nor does a token of a secret file", async () => {
    const runtimeDir = join(scratch, "runtime");
    const { logger, lines } = capturingLogger();
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger, env: { KEY }, staging: { runtimeDir, keepRuns: true } },
      run: () => ({
        args: ["sh", "-c", script],
        stdin: "",
        outcome: async (stdout) => ({ ...(await collectStdout(stdout)), ok: true }),
      }),
    });
    const outcome = await runtime.run(
      { text: "" },
      {
        secretFiles: [
          { agentPath: "/tmp/auth.json", content: AUTH },
          { agentPath: "/tmp/credentials", content: Buffer.from(CREDENTIALS) },
          { agentPath: "/tmp/pin", content: PIN },
        ],
      },
    );
    expect(outcome.reason).toBe("completed");
    const stdout = outcome.result?.bytes.toString("utf8") ?? "";
    const record = join(runtimeDir, outcome.runId);
    const files = readdirSync(record)
      .filter((name) => name !== "work")
      .map((name) => readFileSync(join(record, name), "utf8"));

    // The agent had the values and printed every spelling, each masked but for its edges.
    expect(stdout.split("\n")[0]).toBe(`len:${KEY.length}`);
    const printedLines = [...stdout.split("\n").slice(1), ...outcome.stderr.split("\n")].filter((line) => line.length > 0);
    expect(printedLines.map((line) => line.split(":")[0]).sort()).toEqual(
      ["HEX", "b64-0", "b64-1", "b64-2", "b64url", "hex", "line", "pct", "split", "split", "token", "token", "token-b64", "url"].sort(),
    );
    for (const line of printedLines) expect(line).toMatch(/^[\w-]+:[A-Za-z0-9+/=_-]{0,3}\[REDACTED\]$/);
    expect(readFileSync(join(record, "stdout.txt"), "utf8")).toBe(stdout);
    expect(readFileSync(join(record, "stderr.txt"), "utf8")).toBe(outcome.stderr);

    for (const spelling of printed) {
      const inner = spelling.slice(3, -3);
      expect(JSON.stringify(outcome)).not.toContain(inner);
      expect(lines.join("\n")).not.toContain(inner);
      for (const file of files) expect(file).not.toContain(inner);
    }
  });
});
