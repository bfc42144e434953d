import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CONTROL_SOCKET, DEFAULT_EGRESS_PORT, egressConfigFromEnvironment } from "./environment.js";

const SECRET = "s".repeat(40);
let dir = "";
let secretFile = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "egress-env-"));
  secretFile = join(dir, "control-secret");
  await writeFile(secretFile, `${SECRET}\n`, { mode: 0o600 });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the proxy program's environment", () => {
  it("defaults to every address on its port, the providers' hosts, the model-only mode and the control socket", async () => {
    expect(await egressConfigFromEnvironment({ AGENTCAGE_EGRESS_CONTROL_SECRET_FILE: secretFile })).toEqual({
      proxy: { host: "0.0.0.0", port: DEFAULT_EGRESS_PORT, upstreams: {} },
      control: { socketPath: DEFAULT_CONTROL_SOCKET, secret: SECRET },
      logLevel: "info",
    });
  });

  it("reads every option", async () => {
    const config = await egressConfigFromEnvironment({
      AGENTCAGE_EGRESS_CONTROL_SECRET_FILE: secretFile,
      AGENTCAGE_EGRESS_HOST: "10.0.0.2",
      AGENTCAGE_EGRESS_PORT: "9000",
      AGENTCAGE_EGRESS_UPSTREAM_CLAUDE: "http://stand-in:8080",
      AGENTCAGE_EGRESS_UPSTREAM_CODEX: "http://stand-in:8080",
      AGENTCAGE_EGRESS_ALLOWLIST: "example.com:443, example.org:443",
      AGENTCAGE_EGRESS_CONTROL_ADDRESS: "10.0.9.2:8752",
      AGENTCAGE_EGRESS_LOG_LEVEL: "warn",
    });
    expect(config).toEqual({
      proxy: {
        host: "10.0.0.2",
        port: 9000,
        upstreams: { anthropic: "http://stand-in:8080", openai: "http://stand-in:8080" },
        allowlist: ["example.com:443", "example.org:443"],
      },
      control: { host: "10.0.9.2", port: 8752, secret: SECRET },
      logLevel: "warn",
    });
  });

  it.each([
    [{}, /^AGENTCAGE_EGRESS_CONTROL_SECRET_FILE is not set/],
    [
      { AGENTCAGE_EGRESS_CONTROL_SECRET_FILE: "/nonexistent/secret" },
      /^AGENTCAGE_EGRESS_CONTROL_SECRET_FILE "\/nonexistent\/secret" cannot be read \(ENOENT\)/,
    ],
    [{ AGENTCAGE_EGRESS_PORT: "http" }, /^AGENTCAGE_EGRESS_PORT "http" is not a port/],
    [{ AGENTCAGE_EGRESS_ALLOWLIST: "example.com" }, /^AGENTCAGE_EGRESS_ALLOWLIST holds "example.com", which is not host:port/],
    [{ AGENTCAGE_EGRESS_CONTROL_ADDRESS: "a:1", AGENTCAGE_EGRESS_CONTROL_SOCKET: "/x.sock" }, /are both set/],
    [{ AGENTCAGE_EGRESS_LOG_LEVEL: "loud" }, /^AGENTCAGE_EGRESS_LOG_LEVEL "loud" is not a level/],
  ])("refuses %j naming the variable", async (env, message) => {
    const withSecret =
      "AGENTCAGE_EGRESS_CONTROL_SECRET_FILE" in env || Object.keys(env).length === 0 ? env : { AGENTCAGE_EGRESS_CONTROL_SECRET_FILE: secretFile, ...env };
    await expect(egressConfigFromEnvironment(withSecret)).rejects.toThrow(message);
  });
});
