import { Role, type Message, type Part } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { refusalOf, runRequestOf } from "./a2a-request.js";

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });

const message = (parts: Part[], metadata?: Record<string, unknown>, fields: Partial<Message> = {}): Message => ({
  messageId: "m-1",
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
  ...fields,
});

describe("the Run an A2A message asks for", () => {
  it("is a claude Run of the message's text by default, labelled as A2A's, keyed by the message id", () => {
    const asked = runRequestOf(message([text("What is the capital of France?")]));
    expect(asked).toMatchObject({
      run: { cli: "claude", prompt: "What is the capital of France?", labels: { via: "a2a" } },
      idempotencyKey: "a2a-message:m-1",
    });
    expect(typeof asked === "string" ? undefined : asked.output).toBeUndefined();
  });

  it("takes the agent request's fields and an output schema from the metadata, and leaves other metadata alone", () => {
    const asked = runRequestOf(
      message([text("Answer.")], { cli: "codex", maxTurns: 3, timeoutSeconds: 120, outputSchema: { type: "object" }, traceId: "t-1" }),
    );
    expect(asked).toMatchObject({ run: { cli: "codex", maxTurns: 3, timeoutSeconds: 120, prompt: "Answer." }, output: { schema: { type: "object" } } });
  });

  it("joins text parts and renders data parts as JSON", () => {
    const data: Part = { content: { $case: "data", value: { file: "a.ts" } }, metadata: undefined, filename: "", mediaType: "application/json" };
    expect(runRequestOf(message([text("Review this:"), data]))).toMatchObject({ run: { prompt: 'Review this:\n\n{\n  "file": "a.ts"\n}' } });
  });

  it("is refused, naming what to change, for a bad field, a file, no text, a follow-up or a bad schema", () => {
    expect(runRequestOf(message([text("hi")], { cli: "gemini" }))).toBe('metadata.cli: cli "gemini" is not one of claude, codex');
    expect(runRequestOf(message([text("hi")], { maxTurns: "three" }))).toBe('metadata.maxTurns "three" is not a number; send a number');
    const file: Part = { content: { $case: "url", value: "https://example.test/a.pdf" }, metadata: undefined, filename: "a.pdf", mediaType: "application/pdf" };
    expect(runRequestOf(message([text("read"), file]))).toBe("message.parts[1] is a url part; this agent reads text and data parts only");
    expect(runRequestOf(message([text("  ")]))).toBe("the message has no text; write the task in a text part");
    expect(refusalOf(message([text("more")], undefined, { taskId: "0123456789abcdef" }))).toMatch(
      /^message\.taskId "0123456789abcdef" is set, but each task here is one Run/,
    );
    expect(refusalOf(message([text("hi")], { cli: "gemini" }))).toBe('metadata.cli: cli "gemini" is not one of claude, codex');
    expect(refusalOf(message([text("hi")]))).toBeUndefined();
    expect(runRequestOf(message([text("hi")], { outputSchema: "object" }))).toMatch(/^metadata\.outputSchema is "object", not a JSON Schema/);
    expect(runRequestOf(message([text("hi")], undefined, { messageId: "m".repeat(201) }))).toMatch(/over 200 \(MAX_MESSAGE_ID_CHARACTERS\)/);
    expect(runRequestOf(undefined)).toBe("the request has no message; send one with a text part");
  });
});
