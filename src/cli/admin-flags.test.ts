// The administration commands' flags (keys, tenants, audit) and serve's tenant and pool flags: each form
// --expires and --since take, what `default` and `none` send, a key's prefix taken from a whole key,
// and every bad value refused before anything is sent, naming the flag and quoting the value (exit 2).
// A key given whole is never repeated in a refusal.

import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { callbackUrl, expiryTime, keyPrefix, quotaCount, quotaDollars, sinceTime } from "./admin-flags.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import { askProgram } from "../../test/support/program.js";

const NOW = Date.parse("2026-12-01T12:00:00.000Z");
const now = () => NOW;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * What the command said refusing `words` (`tail` after them: a service address nothing listens on,
 * by default) and the exit status main.ts gives it. Nothing may be sent: a refusal has to come
 * before any request.
 */
async function refusal(words: readonly string[], tail: readonly string[] = ["--remote", "http://127.0.0.1:9"]): Promise<{ said: string; code: number }> {
  const asked = await askProgram([...words, ...tail], { AGENTCAGE_TOKEN: "not-a-token" });
  if (asked.thrown instanceof UsageError) return { said: asked.thrown.message, code: EXIT.usage };
  if (asked.thrown === undefined) throw new Error(`${words.join(" ")} was accepted (it settled ${asked.code}; stderr: ${asked.stderr})`);
  expect(asked.thrown).toBeInstanceOf(CommanderError);
  // main.ts: any CommanderError but help's and version's is exit 2.
  expect((asked.thrown as CommanderError).exitCode).not.toBe(0);
  return { said: asked.stderr, code: EXIT.usage };
}

describe("--expires", () => {
  const expires = expiryTime(now);
  it("takes days, hours and minutes from now, and a date and time, as an ISO time", () => {
    expect(expires("30d")).toBe(new Date(NOW + 30 * DAY).toISOString());
    expect(expires("12h")).toBe(new Date(NOW + 12 * HOUR).toISOString());
    expect(expires("90m")).toBe(new Date(NOW + 90 * 60_000).toISOString());
    expect(expires("2027-01-31T00:00:00Z")).toBe("2027-01-31T00:00:00.000Z");
    expect(expires("2027-01-31T02:00:00+02:00")).toBe("2027-01-31T00:00:00.000Z");
  });

  it.each([
    ["30", "is not a time"],
    ["30 days", "is not a time"],
    ["0d", "is not a time"],
    ["3651d", "is not a time"],
    ["2027-01-31", "is not a time"],
    ["2027-02-30T00:00:00Z", "is not a time"],
    ["tomorrow", "is not a time"],
    ["2020-01-01T00:00:00Z", "has passed"],
  ])("refuses --expires %j (%s), naming the flag and quoting the value", async (value, why) => {
    expect(() => expires(value)).toThrow(`--expires ${JSON.stringify(value)} ${why}`);
    const { said, code } = await refusal(["keys", "create", "--tenant", "a", "--expires", value]);
    expect(said).toContain(`--expires ${JSON.stringify(value)} ${why}`);
    expect(code).toBe(EXIT.usage);
  });
});

describe("--since", () => {
  const since = sinceTime(now);
  it("takes hours, days and minutes back, and a date and time", () => {
    expect(since("1h")).toBe(new Date(NOW - HOUR).toISOString());
    expect(since("2d")).toBe(new Date(NOW - 2 * DAY).toISOString());
    expect(since("2026-11-30T00:00:00Z")).toBe("2026-11-30T00:00:00.000Z");
  });

  it.each([
    ["yesterday", "is not a time"],
    ["-1h", "is not a time"],
    ["2999-01-01T00:00:00Z", "is still to come"],
  ])("refuses --since %j (%s)", async (value, why) => {
    const { said, code } = await refusal(["audit", "--since", value]);
    expect(said).toContain(`--since ${JSON.stringify(value)} ${why}`);
    expect(code).toBe(EXIT.usage);
  });

  it("refuses a --limit outside 1 to 10000", async () => {
    expect((await refusal(["audit", "--limit", "0"])).said).toContain('--limit "0" is not a whole number from 1 to 10000');
  });
});

describe("tenants set", () => {
  it("takes default for a quota and none for --callback-url (sent as null)", () => {
    expect(quotaCount("--max-queued", 10, "a count")("default")).toBe("default");
    expect(quotaCount("--max-queued", 10, "a count")("3")).toBe(3);
    expect(quotaDollars("--daily-spend-usd")("default")).toBe("default");
    expect(quotaDollars("--daily-spend-usd")("$2.50")).toBe(2.5);
    expect(quotaDollars("--daily-spend-usd")("0")).toBe(0);
    expect(callbackUrl("none")).toBe("none");
    expect(callbackUrl("https://ci.example.com/hook")).toBe("https://ci.example.com/hook");
  });

  it.each([
    [["--max-running", "0"], '--max-running "0" is not a whole number from 1 to 10000'],
    [["--max-queued", "1.5"], '--max-queued "1.5" is not a whole number from 1 to 1000000'],
    [["--max-queued", "none"], '--max-queued "none" is not a whole number'],
    [["--daily-spend-usd", "-1"], '--daily-spend-usd "-1" is not an amount of USD'],
    [["--callback-url", "ftp://example.com/x"], '--callback-url "ftp://example.com/x" is not an http or https URL'],
    [["--callback-url", "example.com"], '--callback-url "example.com" is not an http or https URL'],
  ])("refuses %j", async (flags, said) => {
    const refused = await refusal(["tenants", "set", "a", ...flags]);
    expect(refused.said).toContain(said);
    expect(refused.code).toBe(EXIT.usage);
  });

  it("refuses a tenant name the service would not take, in the command's words", async () => {
    expect((await refusal(["tenants", "set", "Team A"])).said).toContain('NAME "Team A" is not a tenant name');
    expect((await refusal(["keys", "create", "--tenant", "-x"])).said).toContain('--tenant "-x" is not a tenant name');
    expect((await refusal(["keys", "create", "--tenant", "a", "--scope", "root"])).said).toMatch(/--scope.*'root' is invalid.*runs:read, runs:write, admin/);
    expect((await refusal(["keys", "create"])).said).toContain("required option '--tenant <name>' not specified");
  });
});

describe("keys revoke", () => {
  const secret = "Zm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9";
  it("takes a prefix, or a whole key whose secret it drops", () => {
    expect(keyPrefix("0123456789ab")).toBe("0123456789ab");
    expect(keyPrefix(`ac_0123456789ab_${secret}`)).toBe("0123456789ab");
  });

  it("refuses what is neither, and never quotes what looks like a key", async () => {
    const notPrefix = await refusal(["keys", "revoke", "0123"]);
    expect(notPrefix.said).toContain('PREFIX "0123" is not a key\'s prefix');
    const typo = `ac_0123456789ab_${secret.slice(1)}`;
    const refused = await refusal(["keys", "revoke", typo]);
    expect(refused.said).toContain("the key given is not one");
    expect(refused.said).not.toContain(secret.slice(1, 20));
    expect(refused.code).toBe(EXIT.usage);
  });
});

describe("serve's tenant flags", () => {
  it.each([
    [["--tenant-max-running", "0"], '--tenant-max-running "0" is not a whole number from 1 to 10000'],
    [["--tenant-max-queued", "lots"], '--tenant-max-queued "lots" is not a whole number from 1 to 1000000'],
    [["--tenant-daily-spend-usd", "ten"], '--tenant-daily-spend-usd "ten" is not an amount of USD'],
    [["--run-network-range", "10.213.0.0/30"], '--run-network-range "10.213.0.0/30" is not an IPv4 range of /8 to /28'],
    [["--run-network-range", "10.213.9.0/16"], '--run-network-range "10.213.9.0/16" has bits set past its /16; write 10.213.0.0/16'],
    [["--run-files", "nfs"], '--run-files "nfs" is not one of disk, engine; write engine to have each Run\'s files go through the engine'],
    [["--pool", "lots"], '--pool "lots" is not a whole number from 0 to 256; write how many agent containers to keep started ahead, e.g. 2, or 0 for none'],
    [["--pool", "257"], '--pool "257" is not a whole number from 0 to 256'],
    [["--pool", "1.5"], '--pool "1.5" is not a whole number from 0 to 256'],
    [["--engine", "tcp://10.0.0.5"], '--engine "tcp://10.0.0.5" cannot be read: --engine "tcp://10.0.0.5" needs a host and a port, as in tcp://10.0.0.5:2376'],
    [["--engine", "local,slots=lots"], '--engine "local,slots=lots" has slots=lots; write a whole number of Runs at once on it'],
    [
      ["--pool-idle-seconds", "0"],
      '--pool-idle-seconds "0" is not a whole number from 1 to 86400; write how many seconds a pooled container waits for its Run, e.g. 300',
    ],
  ])("refuses %j before the service starts", async (flags, said) => {
    const refused = await refusal(["serve", "--runtime-dir", "/nonexistent/agentcage-admin-flags-test", ...flags]);
    expect(refused.said).toContain(said);
    expect(refused.code).toBe(EXIT.usage);
  });

  it.each([
    ["AGENTCAGE_POOL", "two", '--pool "two" is not a whole number from 0 to 256'],
    ["AGENTCAGE_RUN_FILES", "host", '--run-files "host" is not one of disk, engine'],
    ["AGENTCAGE_POOL_IDLE_SECONDS", "86401", '--pool-idle-seconds "86401" is not a whole number from 1 to 86400'],
  ])("refuses %s=%s from the environment in the flag's own words", async (name, value, said) => {
    const before = process.env[name];
    process.env[name] = value;
    try {
      const refused = await refusal(["serve", "--runtime-dir", "/nonexistent/agentcage-admin-flags-test"]);
      expect(refused.said).toContain(said);
      expect(refused.code).toBe(EXIT.usage);
    } finally {
      if (before === undefined) delete process.env[name];
      else process.env[name] = before;
    }
  });
});

describe("serve's --engine", () => {
  it.each([
    [["--engine", "local", "--agent-network", "bridge"], "--agent-network cannot go with --engine: a network named by hand"],
    [
      ["--engine", "local", "--stand-in"],
      "--stand-in cannot go with --engine: a network named by hand, the Operator's one egress proxy, a stand-in model on a network of its own",
    ],
    [["--engine", "local", "--pool", "1"], "--pool cannot go with --engine"],
    [
      [
        "--engine",
        "local",
        "--network-policy",
        "model",
        "--egress-control-socket",
        "/run/agentcage/egress.sock",
        "--egress-control-secret-file",
        "/run/agentcage/control-secret",
      ],
      "--egress-control-socket cannot go with --engine: a network named by hand, the Operator's one egress proxy, a stand-in model on a network of its own and a warm pool live on one engine, and a Run may be placed on any; over several engines leave it out (under --network-policy model or allowlist serve starts a proxy, and the stand-in behind it, on each engine), or give one engine",
    ],
  ])("refuses %j, what lives on one engine, before the service starts", async (flags, said) => {
    const refused = await refusal(["serve", "--runtime-dir", "/nonexistent/agentcage-admin-flags-test", ...flags], []);
    expect(refused.said).toContain(said);
    expect(refused.code).toBe(EXIT.usage);
  });
});

describe("run's --run-files", () => {
  it("refuses a value it does not know, and any value with --remote, before anything starts", async () => {
    const unknown = await refusal(["run", "claude", "hi", "--run-files", "nfs", "--runtime-dir", "/nonexistent/agentcage-admin-flags-test"]);
    expect(unknown.said).toContain('--run-files "nfs" is not one of disk, engine');
    expect(unknown.code).toBe(EXIT.usage);
    const remote = await refusal(["run", "claude", "hi", "--run-files", "engine", "--remote", "http://127.0.0.1:1"]);
    expect(remote.said).toContain("--run-files is the service's to choose with --remote");
    expect(remote.code).toBe(EXIT.usage);
  });
});

describe("runs with --remote", () => {
  it.each([
    [["runs", "ls", "--state", "done"], '--state "done" is not a Run state; write one of queued, starting, running, completed, failed, cancelled'],
    [["runs", "ls", "--label", "team"], '--label "team" is not key=value; write e.g. --label team=review'],
    [["runs", "show", "abc"], 'the Run id "abc" is not one; a Run id is 16 hex digits'],
    [["runs", "logs", "abc"], 'the Run id "abc" is not one; a Run id is 16 hex digits'],
  ])("refuses %j before anything is sent, as it does reading from disk", async (words, said) => {
    const refused = await refusal(words);
    expect(refused.said).toContain(said);
    expect(refused.code).toBe(EXIT.usage);
  });

  it("says when the service cannot be reached (exit 3)", async () => {
    const asked = await askProgram(["runs", "ls", "--remote", "http://127.0.0.1:9"], { AGENTCAGE_TOKEN: "not-a-token" });
    expect(asked.code).toBe(EXIT.unavailable);
    expect(asked.stderr).toContain("the service at http://127.0.0.1:9 cannot be reached");
  });
});
