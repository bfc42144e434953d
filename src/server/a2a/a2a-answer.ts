// An A2A request's output schema and the check of the agent's final answer against it, with ajv.
// The answer is the agent's out/result.json when it wrote one (all of it JSON), else the JSON value
// its final text holds (the whole text, a fenced block, or the span from its first "{" to its last
// "}"), else the text itself as a string. A mismatch names every field that broke the schema by its
// JSON pointer (ajv's instancePath, plus the missing property). The schema is compiled here to
// refuse a bad one up front; the answer is checked in a worker, within OUTPUT_CHECK_TIMEOUT_MS.

import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { validateBounded } from "./a2a-answer-worker.js";
import { MAX_OUTPUT_SCHEMA_BYTES, OUTPUT_CHECK_TIMEOUT_MS } from "../a2a-limits.js";

/** One field of the answer that broke the schema: "/city", or "/" for the answer as a whole. */
export type SchemaMismatch = { readonly field: string; readonly keyword: string; readonly message: string };

export type AnswerCheck =
  | { readonly ok: true; readonly value: unknown; readonly json: boolean }
  | { readonly ok: false; readonly message: string; readonly mismatches: readonly SchemaMismatch[] };

/** A schema that compiles, and the dialect it was compiled in; answers are checked against it in a worker. */
export type OutputSchema = { readonly schema: unknown; readonly dialect: "draft-07" | "2020-12" };

// ajv-formats is CommonJS: under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = formats.default;

/** Compiles a caller's schema, or says in one sentence why it cannot be used. */
export function compileOutputSchema(schema: unknown): OutputSchema | string {
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    return `metadata.outputSchema is ${JSON.stringify(schema)}, not a JSON Schema; send an object such as {"type":"object","required":["city"]}`;
  }
  const size = Buffer.byteLength(JSON.stringify(schema));
  if (size > MAX_OUTPUT_SCHEMA_BYTES)
    return `metadata.outputSchema is ${size} bytes, over its limit of ${MAX_OUTPUT_SCHEMA_BYTES} (MAX_OUTPUT_SCHEMA_BYTES); send a smaller schema`;
  // A fresh validator per schema: callers' schemas (and their $ids) never meet, and nothing is cached past the task.
  const dialect = typeof schema === "object" && String((schema as { $schema?: unknown }).$schema ?? "").includes("2020-12") ? "2020-12" : "draft-07";
  const options = { allErrors: true, strict: false } as const;
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  try {
    ajv.compile(schema);
    return { schema, dialect };
  } catch (error) {
    return `metadata.outputSchema is not a JSON Schema ajv can use (${(error as Error).message}); check it against draft-07 or 2020-12`;
  }
}

/** The JSON value a final answer holds, or undefined when it holds none. */
export function answerValue(text: string): unknown {
  const parse = (candidate: string): unknown => {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      return undefined;
    }
  };
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const whole = parse(trimmed);
  if (whole !== undefined) return whole;
  const fences = [...trimmed.matchAll(/```(?:json)?[ \t]*\n([\s\S]*?)```/g)].reverse();
  for (const fence of fences) {
    const value = parse((fence[1] ?? "").trim());
    if (value !== undefined) return value;
  }
  const first = trimmed.indexOf("{");
  const last = trimmed.lastIndexOf("}");
  return first !== -1 && last > first ? parse(trimmed.slice(first, last + 1)) : undefined;
}

/**
 * Checks an answer against an output schema: the final text (whatever JSON it holds), or, with
 * `file`, the whole content of the file the agent wrote its answer to, which must be JSON. A check
 * that takes longer than `timeoutMs` fails, naming the pattern it was stuck in.
 */
export async function checkAnswer(text: string, output: OutputSchema, file?: string, timeoutMs = OUTPUT_CHECK_TIMEOUT_MS): Promise<AnswerCheck> {
  let value: unknown;
  let json = true;
  if (file !== undefined) {
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      const message = `${file} is not JSON (${(error as Error).message})`;
      return { ok: false, message: `the answer does not match metadata.outputSchema: ${message}`, mismatches: [{ field: "/", keyword: "json", message }] };
    }
  } else {
    const found = answerValue(text);
    json = found !== undefined;
    value = json ? found : text;
  }
  const checked = await validateBounded(output.schema, output.dialect, value, timeoutMs);
  if ("timedOut" in checked) {
    const message =
      checked.pattern === undefined
        ? `the answer could not be checked against metadata.outputSchema within ${timeoutMs} ms (OUTPUT_CHECK_TIMEOUT_MS); send a simpler schema`
        : `the answer could not be checked against metadata.outputSchema within ${timeoutMs} ms (OUTPUT_CHECK_TIMEOUT_MS): its pattern ${JSON.stringify(checked.pattern)} backtracks on it; write a pattern without nested or overlapping repetition, such as "x$"`;
    return { ok: false, message, mismatches: [{ field: "/", keyword: checked.pattern === undefined ? "timeout" : "pattern", message }] };
  }
  if (checked.valid) return { ok: true, value, json };
  const mismatches = checked.errors.map(mismatchOf);
  const fields = mismatches.map((m) => `${m.field}: ${m.message}`).join("; ");
  const message =
    file !== undefined
      ? `the answer in ${file} does not match metadata.outputSchema: ${fields}`
      : json
        ? `the answer does not match metadata.outputSchema: ${fields}`
        : `the answer holds no JSON, so it was checked as a string and does not match metadata.outputSchema${expected(output.schema)}: ${fields}`;
  return { ok: false, message, mismatches };
}

function mismatchOf(error: ErrorObject): SchemaMismatch {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  const child = params.missingProperty ?? params.additionalProperty;
  const pointer = typeof child === "string" ? `${error.instancePath}/${child.replaceAll("~", "~0").replaceAll("/", "~1")}` : error.instancePath;
  return { field: pointer === "" ? "/" : pointer, keyword: error.keyword, message: error.message ?? error.keyword };
}

/** What the schema asks for at the top, in words, for an answer that holds no JSON at all. */
function expected(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "";
  const { type, required } = schema as { type?: unknown; required?: unknown };
  const kind = typeof type === "string" ? ` (${["object", "array", "integer"].includes(type) ? "an" : "a"} ${type}` : "";
  const fields = Array.isArray(required) && required.length > 0 ? ` with ${required.map((r) => `/${String(r)}`).join(", ")}` : "";
  return kind === "" ? (fields === "" ? "" : ` (a value${fields})`) : `${kind}${fields})`;
}
