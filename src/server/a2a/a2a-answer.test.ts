import { describe, expect, it } from "vitest";
import { answerValue, checkAnswer, compileOutputSchema, type OutputSchema } from "./a2a-answer.js";

const compiled = (schema: unknown): OutputSchema => {
  const output = compileOutputSchema(schema);
  if (typeof output === "string") throw new Error(output);
  return output;
};

const CITY = { type: "object", required: ["city"], properties: { city: { type: "string" }, population: { type: "integer", minimum: 0 } } };

describe("the JSON a final answer holds", () => {
  it("is the whole text, a fenced block, or the span from its first { to its last }", () => {
    expect(answerValue('{"city":"Paris"}')).toEqual({ city: "Paris" });
    expect(answerValue('Here it is:\n```json\n{"city": "Paris"}\n```\nDone.')).toEqual({ city: "Paris" });
    expect(answerValue('The answer is {"city": "Paris", "nested": {"a": 1}} as asked.')).toEqual({ city: "Paris", nested: { a: 1 } });
    expect(answerValue("42")).toBe(42);
  });

  it("is nothing when the text holds no JSON", () => {
    expect(answerValue("The capital of France is Paris.")).toBeUndefined();
    expect(answerValue("")).toBeUndefined();
    expect(answerValue("a { broken } brace")).toBeUndefined();
  });
});

describe("checking an answer against an output schema", () => {
  it("passes a matching answer and hands back the JSON it held", async () => {
    expect(await checkAnswer('{"city":"Paris","population":2100000}', compiled(CITY))).toEqual({
      ok: true,
      value: { city: "Paris", population: 2100000 },
      json: true,
    });
  });

  it("names a missing required field by its JSON pointer", async () => {
    const check = await checkAnswer('{"town":"Paris"}', compiled(CITY));
    expect(check).toMatchObject({ ok: false, mismatches: [{ field: "/city", keyword: "required" }] });
    expect(check.ok ? "" : check.message).toBe("the answer does not match metadata.outputSchema: /city: must have required property 'city'");
  });

  it("names every field of the wrong type or range, nested ones included", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "object", properties: { name: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{5}$" } } } },
    };
    const check = await checkAnswer('{"city":{"name":7,"zip":"7500"}}', compiled(schema));
    expect(check.ok ? [] : check.mismatches.map((m) => m.field)).toEqual(["/city/name", "/city/zip"]);
    const population = await checkAnswer('{"city":"Paris","population":-1}', compiled(CITY));
    expect(population.ok ? "" : population.message).toContain("/population: must be >= 0");
  });

  it("names a field the schema forbids, escaping / and ~ as JSON pointers do", async () => {
    const check = await checkAnswer('{"city":"Paris","a/b~c":1}', compiled({ ...CITY, additionalProperties: false }));
    expect(check.ok ? [] : check.mismatches.map((m) => m.field)).toEqual(["/a~1b~0c"]);
  });

  it("checks an answer with no JSON in it as a string, saying what the schema asked for", async () => {
    const check = await checkAnswer("The capital of France is Paris.", compiled(CITY));
    expect(check).toMatchObject({ ok: false, mismatches: [{ field: "/", keyword: "type" }] });
    expect(check.ok ? "" : check.message).toBe(
      "the answer holds no JSON, so it was checked as a string and does not match metadata.outputSchema (an object with /city): /: must be object",
    );
    expect(await checkAnswer("The capital of France is Paris.", compiled({ type: "string", pattern: "Paris" }))).toEqual({
      ok: true,
      value: "The capital of France is Paris.",
      json: false,
    });
  });

  it("knows the formats and the 2020-12 dialect", async () => {
    expect((await checkAnswer('{"at":"yesterday"}', compiled({ properties: { at: { format: "date-time" } } }))).ok).toBe(false);
    const tuple = compiled({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string" }, { type: "number" }],
      items: false,
    });
    expect((await checkAnswer('["Paris", 2]', tuple)).ok).toBe(true);
    expect((await checkAnswer('["Paris", 2, 3]', tuple)).ok).toBe(false);
  });
});

describe("an answer checked against a pattern that backtracks", () => {
  it("fails naming the pattern once the check passes its bound, and never holds up the event loop", async () => {
    // Each more character of the answer doubles the work: 34 held the event loop for 68 s when it was checked on it.
    const pattern = "^.{4}(.|.)*x$";
    let last = performance.now();
    let longestGapMs = 0;
    const ticker = setInterval(() => {
      longestGapMs = Math.max(longestGapMs, performance.now() - last);
      last = performance.now();
    }, 10);
    const started = performance.now();
    const check = await checkAnswer("a".repeat(34), compiled({ type: "string", pattern }), undefined, 2_000);
    const tookMs = performance.now() - started;
    clearInterval(ticker);
    longestGapMs = Math.max(longestGapMs, performance.now() - last);
    expect(check).toMatchObject({ ok: false, mismatches: [{ field: "/", keyword: "pattern" }] });
    expect(check.ok ? "" : check.message).toBe(
      `the answer could not be checked against metadata.outputSchema within 2000 ms (OUTPUT_CHECK_TIMEOUT_MS): its pattern ${JSON.stringify(pattern)} backtracks on it; write a pattern without nested or overlapping repetition, such as "x$"`,
    );
    // The bound (2 s here) and the start of a worker on a busy machine; never the 68 s the check itself would take.
    expect(longestGapMs).toBeLessThan(1_000);
    expect(tookMs).toBeLessThan(6_000);
  });
});

describe("an output schema", () => {
  it("is refused when it is not a schema, too large, or does not compile, in words that say what to send", () => {
    expect(compileOutputSchema("object")).toMatch(/^metadata\.outputSchema is "object", not a JSON Schema; send an object/);
    expect(compileOutputSchema([1])).toMatch(/not a JSON Schema/);
    expect(compileOutputSchema({ description: "x".repeat(70_000) })).toMatch(/over its limit of 65536 \(MAX_OUTPUT_SCHEMA_BYTES\)/);
    expect(compileOutputSchema({ type: "object", properties: { a: { $ref: "#/nowhere" } } })).toMatch(
      /^metadata\.outputSchema is not a JSON Schema ajv can use \(.*nowhere/,
    );
    expect(compileOutputSchema({ type: "potato" })).toMatch(/not a JSON Schema ajv can use/);
  });

  it("keeps one caller's $id from meeting another's", () => {
    expect(typeof compileOutputSchema({ $id: "https://example.test/s", type: "string" })).toBe("object");
    expect(typeof compileOutputSchema({ $id: "https://example.test/s", type: "number" })).toBe("object");
  });
});
