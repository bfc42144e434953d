import { describe, expect, it } from "vitest";
import { createMeter } from "./meter.js";
import { validateProxyOptions } from "./options.js";
import { upstreamRequestHeaders } from "./headers.js";
import { EGRESS_PROVIDERS } from "./providers/index.js";
import { validateRegistration } from "./run.js";

const KEY = "sk-ant-api03-validation-key-0123456789";
const good = { runId: "0123456789abcdef", provider: "anthropic", credential: { kind: "api_key", value: KEY } };

describe("a Run's registration", () => {
  it("is taken as it is when every field is right", () => {
    expect(validateRegistration({ ...good, budget: { maxTurns: 3, maxTokens: 1000, maxCostUsd: 0.5 } })).toEqual({
      ...good,
      budget: { maxTurns: 3, maxTokens: 1000, maxCostUsd: 0.5 },
    });
    expect(validateRegistration({ ...good, allowlist: [] })).toEqual({ ...good, allowlist: [] });
  });

  it.each([
    [{ ...good, runId: "" }, /^runId "" must be 1 to 128 letters/],
    [{ ...good, runId: "../etc" }, /^runId "\.\.\/etc" must be/],
    [{ ...good, provider: "gemini" }, /^provider "gemini" must be one of "anthropic", "openai"/],
    [{ ...good, cli: "Claude\n" }, /^cli "Claude\\n" must be a CLI's name/],
    [{ ...good, credential: { kind: "password", value: KEY } }, /^credential\.kind "password" must be "api_key" or "oauth_token"/],
    [{ ...good, budget: { maxTurns: 1.5 } }, /^budget\.maxTurns 1\.5 must be a positive whole number/],
    [{ ...good, budget: { maxCostUsd: -1 } }, /^budget\.maxCostUsd -1 must be a positive number of dollars/],
    [{ ...good, budget: { maxWallSeconds: 60 } }, /^budget\.maxWallSeconds 60 is not a cap; the caps are maxTurns, maxTokens, maxCostUsd/],
    ["run", /^registration "run" must be an object/],
    [{ ...good, allowlist: "example.com:443" }, /^allowlist "example\.com:443" must be a list of at most 256 "host:port" strings/],
    [{ ...good, allowlist: ["example.com:443", "example.com"] }, /^allowlist\[1\] "example\.com" is not host:port/],
  ])("refuses %j naming the parameter and quoting the value", (value, message) => {
    expect(() => validateRegistration(value)).toThrow(message);
  });

  it("never quotes a credential, whatever is wrong with it", () => {
    for (const credential of [KEY, { kind: "api_key", value: `${KEY}\n` }, { kind: "api_key", value: `${KEY} ${KEY}` }, { kind: "api_key", value: "" }]) {
      let message = "";
      try {
        validateRegistration({ ...good, credential });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^credential/);
      expect(message).not.toContain(KEY);
    }
  });
});

describe("the proxy's options", () => {
  it("default to loopback, the providers' API hosts and the model-only mode", () => {
    const options = validateProxyOptions({});
    expect(options.host).toBe("127.0.0.1");
    expect(options.upstreams.anthropic.href).toBe("https://api.anthropic.com/");
    expect(options.upstreams.openai.href).toBe("https://api.openai.com/");
    expect(options.allowlist.size).toBe(0);
  });

  it.each([
    [{ upstreams: { anthropic: "api.anthropic.com" } }, /^upstreams\.anthropic "api\.anthropic\.com" is not a URL/],
    [{ upstreams: { openai: "ftp://example.com" } }, /^upstreams\.openai "ftp:\/\/example\.com" is not http or https/],
    [{ upstreams: { anthropic: "https://user:pw@example.com" } }, /^upstreams\.anthropic holds a user name or password/],
    [{ upstreams: { gemini: "https://example.com" } }, /^upstreams\.gemini names no model provider/],
    [{ port: 70000 }, /^port 70000 is not a port/],
    [{ allowlist: ["[::1]:443", "Example.COM:443", "nohost"] }, /^allowlist\[2\] "nohost" is not host:port/],
  ])("refuse %j, naming the option", (options, message) => {
    expect(() => validateProxyOptions(options as never)).toThrow(message);
  });

  it("normalise allowlist entries: host lower-case, IPv6 in brackets", () => {
    expect([...validateProxyOptions({ allowlist: ["[::1]:443", "Example.COM:8443"] }).allowlist]).toEqual(["[::1]:443", "example.com:8443"]);
  });
});

describe("the headers sent upstream", () => {
  const incoming = {
    "x-api-key": "agentcage-run-token",
    authorization: "Bearer agentcage-run-token",
    "proxy-authorization": "Basic abc",
    cookie: "a=b",
    connection: "keep-alive, x-hop",
    "x-hop": "1",
    "keep-alive": "timeout=5",
    "transfer-encoding": "chunked",
    "accept-encoding": "gzip, br",
    host: "proxy:8080",
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
  };

  it("carry the client's own headers, none of its credentials or hop-by-hop ones, and the real key", () => {
    expect(upstreamRequestHeaders(EGRESS_PROVIDERS.anthropic, { kind: "api_key", value: KEY }, incoming)).toEqual({
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
      "accept-encoding": "identity",
      "x-api-key": KEY,
    });
  });

  it("carry codex's key as a bearer token", () => {
    expect(upstreamRequestHeaders(EGRESS_PROVIDERS.openai, { kind: "oauth_token", value: KEY }, { authorization: "Bearer t" })).toEqual({
      "accept-encoding": "identity",
      authorization: `Bearer ${KEY}`,
    });
  });

  it("add the OAuth beta once to claude's betas for an OAuth token", () => {
    const headers = upstreamRequestHeaders(
      EGRESS_PROVIDERS.anthropic,
      { kind: "oauth_token", value: KEY },
      { "anthropic-beta": "oauth-2025-04-20, fine-grained-tool-streaming-2025-05-14" },
    );
    expect(headers).toEqual({
      "accept-encoding": "identity",
      authorization: `Bearer ${KEY}`,
      "anthropic-beta": "oauth-2025-04-20,fine-grained-tool-streaming-2025-05-14",
    });
  });
});

describe("a Run's meter", () => {
  it("prices each response at its own model, and at the dearest when the model is unknown", () => {
    const meter = createMeter("r", "anthropic", {});
    meter.add({ model: "claude-haiku-4-5", usage: { inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(meter.reading()).toMatchObject({ costUsd: 1, costFrom: "price_table", models: ["claude-haiku-4-5"] });
    meter.add({ model: "claude-future-9", usage: { inputTokens: 0, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(meter.reading()).toMatchObject({ costUsd: 76, costFrom: "dearest_price", models: ["claude-haiku-4-5", "claude-future-9"] });
  });

  it("lets exactly maxTurns model calls through and reports the breach once", () => {
    const meter = createMeter("r", "openai", { maxTurns: 2 });
    expect(meter.admit()).toMatchObject({ kind: "admitted" });
    expect(meter.admit()).toMatchObject({ kind: "admitted" });
    expect(meter.admit()).toMatchObject({ kind: "refused", fresh: true, refused: { cap: "maxTurns", limit: 2, used: 3 } });
    expect(meter.admit()).toMatchObject({ kind: "refused", fresh: false });
    expect(meter.reading().turns).toBe(2);
  });

  it("holds maxTokens to input plus output, cached tokens apart, and is not past it at the cap", () => {
    const meter = createMeter("r", "anthropic", { maxTokens: 100 });
    expect(meter.add({ usage: { inputTokens: 50, outputTokens: 50, cacheReadTokens: 10_000, cacheWriteTokens: 10_000 } })).toBeUndefined();
    expect(meter.admit()).toMatchObject({ kind: "admitted" });
    expect(meter.add({ usage: { inputTokens: 1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } })).toMatchObject({ cap: "maxTokens", used: 101 });
    expect(meter.admit()).toMatchObject({ kind: "refused", fresh: false, refused: { cap: "maxTokens" } });
  });

  it("makes a call wait while the reservations in flight could carry the Run past a cap, and admits it once they settle", async () => {
    const meter = createMeter("r", "anthropic", { maxTokens: 1_000 });
    const first = meter.admit({ tokens: 600, costUsd: 0 });
    const second = meter.admit({ tokens: 600, costUsd: 0 });
    expect([first.kind, second.kind]).toEqual(["admitted", "admitted"]);
    // 1,200 reserved: a third would pass the cap if both spent their worst.
    expect(meter.admit({ tokens: 600, costUsd: 0 })).toEqual({ kind: "wait" });
    const woken = meter.settled();
    if (first.kind !== "admitted" || second.kind !== "admitted") throw new Error("not admitted");
    first.settle({ usage: { inputTokens: 100, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    await woken;
    // 150 spent, 600 reserved: room again.
    expect(meter.admit({ tokens: 600, costUsd: 0 })).toMatchObject({ kind: "admitted" });
    expect(meter.inFlight()).toBe(2);
    second.settle(undefined);
    second.settle(undefined);
    expect(meter.inFlight()).toBe(1);
  });

  it("holds maxCostUsd the same way, and never makes a lone call wait", () => {
    const meter = createMeter("r", "openai", { maxCostUsd: 0.01 });
    const alone = meter.admit({ tokens: 0, costUsd: 5 });
    expect(alone.kind).toBe("admitted");
    expect(meter.admit({ tokens: 0, costUsd: 0.001 })).toEqual({ kind: "wait" });
    if (alone.kind === "admitted") alone.settle(undefined);
    expect(meter.admit({ tokens: 0, costUsd: 5 }).kind).toBe("admitted");
  });
});
