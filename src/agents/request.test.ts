// parseAgentRequest is the gate every agent Run passes: these tests pin the defaults it fills in
// and each refusal, whose message must quote the offending value so a caller can find it.

import { describe, expect, it } from "vitest";
import { MAX_AGENT_REQUEST_BYTES } from "./limits.js";
import { AgentRequestError, parseAgentRequest } from "./request.js";

/** The message parseAgentRequest throws for an input; fails the test when it does not throw. */
function refusal(input: unknown): string {
  try {
    parseAgentRequest(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentRequestError);
    expect((error as Error).name).toBe("AgentRequestError");
    return (error as Error).message;
  }
  throw new Error(`parseAgentRequest accepted ${JSON.stringify(input)}`);
}

const MODEL_HINT = 'is not a model id; use letters, digits and ._:/@[]- and do not start with "-"';

describe("parseAgentRequest", () => {
  describe("fills in defaults", () => {
    it("gives a request with only cli every default", () => {
      expect(parseAgentRequest({ cli: "claude" })).toEqual({
        cli: "claude",
        web: false,
        noTools: false,
        maxTurns: 100,
        timeoutSeconds: 1800,
        stallSeconds: 600,
      });
    });

    it("keeps every field a caller wrote", () => {
      const full = {
        cli: "codex",
        model: "gpt-5.5",
        effort: "high",
        web: true,
        noTools: true,
        maxTurns: 7,
        timeoutSeconds: 60,
        systemPrompt: "Be brief.",
        resumeSession: "01a22a3a-acd8-76d0-b073-23922d1390c9",
        budget: { maxTurns: 5, maxTokens: 10_000, maxCostUsd: 0.25, maxWallSeconds: 300 },
        stallSeconds: 120,
      };
      expect(parseAgentRequest(full)).toEqual(full);
    });
  });

  describe("budget and stallSeconds", () => {
    it.each([
      [{ budget: { maxTokens: 0 } }, "budget.maxTokens 0 is out of range; write a whole number from 1 to 1000000000"],
      [{ budget: { maxTurns: 2.5 } }, "budget.maxTurns 2.5 is not a whole number"],
      [{ budget: { maxCostUsd: -1 } }, "budget.maxCostUsd -1 is out of range; write dollars above 0"],
      [{ budget: { maxCostUsd: "1" } }, 'budget.maxCostUsd "1" is not a number'],
      [{ budget: { maxDollars: 1 } }, 'budget\'s field "maxDollars" is not one budget takes; send only maxTurns, maxTokens, maxCostUsd, maxWallSeconds'],
      [{ stallSeconds: 0 }, "stallSeconds 0 is out of range; write a whole number from 1 to 86400"],
    ])("refuses %j, naming the field", (fields, said) => {
      expect(refusal({ cli: "claude", ...fields })).toContain(said);
    });
  });

  describe("refuses an unknown field", () => {
    it("names the field", () => {
      expect(refusal({ cli: "claude", argv: ["--rm"] })).toBe(
        'the agent request is invalid: field "argv" is not one the agent request takes; send only cli, model, effort, web, noTools, maxTurns, timeoutSeconds, systemPrompt, budget, stallSeconds, resumeSession',
      );
    });

    it("suggests the field a near miss meant", () => {
      expect(refusal({ cli: "claude", maxTurn: 3 })).toContain('field "maxTurn" is not one the agent request takes; send only cli,');
      expect(refusal({ cli: "claude", maxTurn: 3 })).toContain("(did you mean maxTurns?)");
    });
  });

  describe("refuses a cli it has no adapter for", () => {
    it("quotes the cli", () => {
      expect(refusal({ cli: "gemini" })).toBe('the agent request is invalid: cli "gemini" is not one of claude, codex');
    });
  });

  describe("model", () => {
    it.each(["-rf", "a b", "x;y", "", "$(id)"])("refuses %j, quoting it", (model) => {
      expect(refusal({ cli: "claude", model })).toBe(`the agent request is invalid: model ${JSON.stringify(model)} ${MODEL_HINT}`);
    });

    it.each(["claude-sonnet-4-5", "gpt-5.5", "openai/gpt-4o@2024", "model[1m]", "a:b"])("accepts %j", (model) => {
      expect(parseAgentRequest({ cli: "claude", model }).model).toBe(model);
    });
  });

  describe("effort", () => {
    // What the pinned CLIs take: claude 2.1.332's --effort help ("low, medium, high, xhigh, max"; it
    // ignores anything else with a warning), codex 0.171.0's model_reasoning_effort (its model catalog's
    // levels and the API's none and minimal; it sends anything else on to the model, which refuses it).
    const CLAUDE = "low, medium, high, xhigh, max";
    const CODEX = "none, minimal, low, medium, high, xhigh, max, ultra";

    it.each([
      ["claude", "bogus", CLAUDE],
      ["claude", "ultra", CLAUDE],
      ["claude", "minimal", CLAUDE],
      ["claude", "High", CLAUDE],
      ["codex", 'high"', CODEX],
      ["codex", "extreme", CODEX],
      ["codex", "", CODEX],
    ])("refuses %s's effort %j, quoting it and listing what the CLI takes", (cli, effort, taken) => {
      expect(refusal({ cli, effort })).toBe(`the agent request is invalid: effort ${JSON.stringify(effort)} is not one ${cli} takes; write one of ${taken}`);
    });

    it.each([
      ["claude", CLAUDE],
      ["codex", CODEX],
    ])("accepts each effort %s takes", (cli, taken) => {
      for (const effort of taken.split(", ")) expect(parseAgentRequest({ cli, effort }).effort).toBe(effort);
    });
  });

  describe("maxTurns", () => {
    it.each([-1, 1001])("refuses %s as out of range", (maxTurns) => {
      expect(refusal({ cli: "claude", maxTurns })).toBe(`the agent request is invalid: maxTurns ${maxTurns} is out of range; write 0 to 1000`);
    });

    it("refuses 1.5", () => {
      expect(refusal({ cli: "claude", maxTurns: 1.5 })).toMatch(/^the agent request is invalid: maxTurns /);
    });

    it("quotes 1.5 as not a whole number", () => {
      expect(refusal({ cli: "claude", maxTurns: 1.5 })).toBe("the agent request is invalid: maxTurns 1.5 is not a whole number");
    });

    it.each([0, 1000])("accepts %s", (maxTurns) => {
      expect(parseAgentRequest({ cli: "claude", maxTurns }).maxTurns).toBe(maxTurns);
    });
  });

  describe("timeoutSeconds", () => {
    it.each([0, 86_401])("refuses %s as out of range", (timeoutSeconds) => {
      expect(refusal({ cli: "claude", timeoutSeconds })).toBe(
        `the agent request is invalid: timeoutSeconds ${timeoutSeconds} is out of range; write 1 to 86400`,
      );
    });

    it.each([1, 86_400])("accepts %s", (timeoutSeconds) => {
      expect(parseAgentRequest({ cli: "claude", timeoutSeconds }).timeoutSeconds).toBe(timeoutSeconds);
    });
  });

  describe("size", () => {
    it("refuses a 65 KiB request, naming MAX_AGENT_REQUEST_BYTES", () => {
      const request = { cli: "claude", systemPrompt: "x".repeat(65 * 1024) };
      const size = Buffer.byteLength(JSON.stringify(request));
      expect(refusal(request)).toBe(
        `the request is ${size} bytes, over its limit of ${MAX_AGENT_REQUEST_BYTES} (MAX_AGENT_REQUEST_BYTES); move large text into the prompt or input files`,
      );
    });

    it("accepts a request of exactly MAX_AGENT_REQUEST_BYTES", () => {
      const empty = Buffer.byteLength(JSON.stringify({ cli: "claude", systemPrompt: "" }));
      const systemPrompt = "x".repeat(MAX_AGENT_REQUEST_BYTES - empty);
      expect(parseAgentRequest({ cli: "claude", systemPrompt }).systemPrompt).toBe(systemPrompt);
    });

    it("refuses a value that is not JSON data", () => {
      const circular: Record<string, unknown> = { cli: "claude" };
      circular["self"] = circular;
      expect(refusal(circular)).toBe("the request is not JSON data; pass a plain object");
    });
  });

  describe("resumeSession", () => {
    // codex starts a new thread for an id that is not a UUID (exit 0); claude looks it up as a title.
    it.each(["abc def", "-abc", "not-a-uuid", "6F9B66AA-50A7-4B68-8CB5-57E7B106A44C"])("refuses %j, quoting it", (resumeSession) => {
      expect(refusal({ cli: "claude", resumeSession })).toBe(
        `the agent request is invalid: resumeSession ${JSON.stringify(resumeSession)} is not a session id (a lower-case UUID); pass the sessionId an earlier Outcome reported`,
      );
    });

    it("accepts a UUID", () => {
      expect(parseAgentRequest({ cli: "claude", resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" }).resumeSession).toBe(
        "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c",
      );
    });
  });

  describe("a request with several problems", () => {
    it("names every one", () => {
      expect(refusal({ cli: "claude", model: "-rf", maxTurns: 1001 })).toBe(
        `the agent request is invalid: model "-rf" ${MODEL_HINT}; maxTurns 1001 is out of range; write 0 to 1000`,
      );
    });

    it("says which field has the wrong type", () => {
      expect(refusal({ cli: "claude", web: "yes" })).toBe('the agent request is invalid: web "yes" is not a boolean; send a boolean');
    });
  });
});
