// What a runner's pool members start ahead: claude's argv for the default request, learnt only from a
// Run whose argv holds no caller's text; under `model` a token of each member's own, under `none` no
// key at all (its key helper waits for the claim); none under `open` or `allowlist`.

import { describe, expect, it } from "vitest";
import { claudeArgs, parseAgentRequest } from "../agents/index.js";
import { keyHelperCommand } from "./hand-over.js";
import { headStartsOf } from "./head-start.js";
import type { RunnerSettings } from "./settings.js";

const CLAUDE_KEY_HELPER = keyHelperCommand("ANTHROPIC_API_KEY");

const gateway = { alias: "egress", port: 8751, container: "agentcage-egress-x" };
const settings = (over: Partial<RunnerSettings> & { pool?: unknown } = {}): RunnerSettings =>
  ({
    policy: "model",
    gateway,
    endpoints: {},
    options: { image: "agentcage-agent:latest", pool: over.pool === undefined ? { size: 1 } : over.pool },
    ...over,
  }) as unknown as RunnerSettings;
const request = (input: object) => parseAgentRequest({ cli: "claude", ...input });

describe("a runner's head starts", () => {
  it("start claude with the default request's argv and a fresh per-Run token for each member", () => {
    const heads = headStartsOf(settings());
    const [a, b] = [heads?.plan(), heads?.plan()];
    expect(a?.words).toEqual(claudeArgs(request({}), { streamInput: true }));
    expect(a?.env["ANTHROPIC_API_KEY"]).toMatch(/^agentcage-run-[A-Za-z0-9_-]{43}$/);
    expect(b?.env["ANTHROPIC_API_KEY"]).not.toBe(a?.env["ANTHROPIC_API_KEY"]);
  });

  it("learn a Run's argv of numbers, flags and known models, never one with a system prompt, a session or an unknown model", () => {
    const heads = headStartsOf(settings());
    heads?.learn(request({ maxTurns: 5, model: "claude-sonnet-4-5" }));
    expect(heads?.plan().words).toEqual(claudeArgs(request({ maxTurns: 5, model: "claude-sonnet-4-5" }), { streamInput: true }));
    heads?.learn(request({ maxTurns: 6, systemPrompt: "the caller's words" }));
    heads?.learn(request({ maxTurns: 7, resumeSession: "0b6e5a2c-8c1e-4bd6-9a53-4a2c1f0e9d11" }));
    heads?.learn(request({ maxTurns: 8, model: "my-own-finetune" }));
    heads?.learn(parseAgentRequest({ cli: "codex", maxTurns: 9 }));
    expect(heads?.plan().words).toEqual(claudeArgs(request({ maxTurns: 5, model: "claude-sonnet-4-5" }), { streamInput: true }));
  });

  it("offer a claude Run its member's token, and a codex Run none", () => {
    const heads = headStartsOf(settings());
    const offered = { ANTHROPIC_API_KEY: "agentcage-run-x" };
    expect(heads?.offeredToken(request({}), offered)).toBe("agentcage-run-x");
    expect(heads?.offeredToken(parseAgentRequest({ cli: "codex" }), offered)).toBeUndefined();
    expect(heads?.offeredToken(request({}), undefined)).toBeUndefined();
  });

  it("start claude under none with its key helper and no key in the environment, the argv a cold Run's too", () => {
    const heads = headStartsOf(settings({ policy: "none", gateway: undefined }));
    expect(heads?.plan()).toEqual({ words: claudeArgs(request({}), { streamInput: true, keyHelper: CLAUDE_KEY_HELPER }), env: {} });
    heads?.learn(request({ maxTurns: 5 }));
    expect(heads?.plan().words).toEqual(claudeArgs(request({ maxTurns: 5 }), { streamInput: true, keyHelper: CLAUDE_KEY_HELPER }));
    expect(heads?.offeredToken(request({}), { ANTHROPIC_API_KEY: "agentcage-run-x" })).toBeUndefined();
  });

  it("are none without a pool, with headStart false, under open or allowlist (the credential would be in the member), or under none when claude would give up on its helper", () => {
    expect(headStartsOf(settings({ pool: { size: 1, headStart: false } }))).toBeUndefined();
    expect(headStartsOf({ ...settings(), options: { image: "x" } } as RunnerSettings)).toBeUndefined();
    for (const policy of ["open", "allowlist"] as const) {
      expect(headStartsOf(settings({ policy, ...(policy === "allowlist" ? {} : { gateway: undefined }) }))).toBeUndefined();
    }
    expect(headStartsOf(settings({ policy: "none", gateway: undefined, pool: { size: 1, maxIdleSeconds: 539 } }))).toBeDefined();
    expect(headStartsOf(settings({ policy: "none", gateway: undefined, pool: { size: 1, maxIdleSeconds: 540 } }))).toBeUndefined();
  });
});
