// How a Run's credential reaches its agent: claude's API key under `none` as a tmpfs secret its key
// helper reads (never in the environment), every other key in its variable, a login as a file.

import { describe, expect, it } from "vitest";
import { handOver, keyHelperCommand, keyHelperFor, type FoundCredential } from "./hand-over.js";

const CLAUDE_KEY_HELPER = keyHelperCommand("ANTHROPIC_API_KEY");

const key = (variable: string, kind: "api_key" | "oauth_token" = "api_key"): FoundCredential =>
  ({ kind, variable, source: "environment", value: "sk-ant-api03-the-key-itself" }) as FoundCredential;

describe("a Run's credential handed over", () => {
  it("goes to claude under none as a tmpfs secret for its key helper, in no variable", () => {
    const helper = keyHelperFor("claude", key("ANTHROPIC_API_KEY"), "none");
    expect(helper).toBe(CLAUDE_KEY_HELPER);
    expect(helper).not.toContain("sk-ant");
    expect(handOver("claude", key("ANTHROPIC_API_KEY"), undefined, helper)).toEqual({ tmpfsSecrets: { "anthropic-api-key": "sk-ant-api03-the-key-itself" } });
  });

  it("stays in its variable for an OAuth token, for codex, and under any other policy", () => {
    expect(keyHelperFor("claude", key("CLAUDE_CODE_OAUTH_TOKEN", "oauth_token"), "none")).toBeUndefined();
    expect(keyHelperFor("codex", key("OPENAI_API_KEY"), "none")).toBeUndefined();
    for (const policy of ["open", "model", "allowlist"]) expect(keyHelperFor("claude", key("ANTHROPIC_API_KEY"), policy)).toBeUndefined();
    expect(handOver("claude", key("ANTHROPIC_API_KEY"), undefined)).toEqual({ env: { ANTHROPIC_API_KEY: "sk-ant-api03-the-key-itself" } });
  });
});
