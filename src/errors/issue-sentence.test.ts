// The one sentence a refused value is told in, on zod's real issues: the field named, the value
// quoted (or not, where it may be a secret), what to send, a near miss suggested, a schema's own
// words passed on as they are.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { issueSentence, knownKeys, valueAt } from "./index.js";

const schema = z.strictObject({
  cli: z.enum(["claude", "codex"]),
  maxTurns: z.number().int().optional(),
  name: z.string().max(3).optional(),
  budget: z.strictObject({ maxTokens: z.number().optional() }).optional(),
  note: z.string({ error: "note is not text; write it as a string" }).optional(),
});

function sentenceFor(input: unknown, shown = true): string[] {
  const parsed = schema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const name = issue.path.map(String).join(".") || "the request";
    return issueSentence(issue, {
      name,
      value: valueAt(input, issue.path),
      taker: issue.path.length === 0 ? "the request" : name,
      keyKind: issue.path.length === 0 ? "field" : `${name}'s field`,
      known: knownKeys(schema, issue.path),
      shown,
    });
  });
}

describe("issueSentence", () => {
  it.each([
    [{ cli: "gemini" }, 'cli "gemini" is not one of claude, codex; send one of them'],
    [{ cli: "claude", maxTurns: "3" }, 'maxTurns "3" is not a number; send a number'],
    [{ cli: "claude", name: "long" }, 'name "long" is too long; send at most 3 characters'],
    [{ cli: "claude", maxTurn: 3 }, 'field "maxTurn" is not one the request takes; send only cli, maxTurns, name, budget, note (did you mean maxTurns?)'],
    [{ cli: "claude", budget: { maxTokenz: 1 } }, 'budget\'s field "maxTokenz" is not one budget takes; send only maxTokens (did you mean maxTokens?)'],
    [{ cli: "claude", note: 5 }, "note is not text; write it as a string"],
    ["claude", 'the request "claude" is not an object; send an object'],
  ])("says %j is refused as %j", (input, said) => {
    expect(sentenceFor(input)).toEqual([said]);
  });

  it("names a field it may not show, and never quotes what it held", () => {
    expect(sentenceFor({ cli: "sk-secret-value" }, false)).toEqual(["cli is not one of claude, codex; send one of them"]);
  });

  it("says a value nested too deeply to write as JSON is refused by its kind, where quoting it would overflow the stack", () => {
    let deep: unknown = [];
    for (let level = 1; level < 100_000; level++) deep = [deep];
    expect(sentenceFor(deep)).toEqual(["the request (an array nested too deeply to quote) is not an object; send an object"]);
    expect(sentenceFor({ cli: "claude", budget: { maxTokens: deep } })).toEqual([
      "budget.maxTokens (an array nested too deeply to quote) is not a number; send a number",
    ]);
  });
});
