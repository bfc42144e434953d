// What a refused request is told, in the project's words: one sentence naming the field or the
// parameter, quoting the value it was sent, and saying what to send instead. zod's own wording
// ("Unrecognized key", "Invalid input") never reaches a caller; a schema's own message (the agent
// request's, which already says all that) is passed on as it is.

import type { FastifyRequest } from "fastify";
import type { ZodType } from "zod";

/** One issue as fastify-type-provider-zod hands it over: zod's code, where, zod's message, the rest of the issue. */
export type ValidationIssue = {
  readonly keyword: string;
  readonly instancePath: string;
  readonly message?: string;
  readonly params: Readonly<Record<string, unknown>>;
};

/** Where the value was: the body, the query string, the path, the headers. */
export type ValidationContext = "body" | "querystring" | "params" | "headers";

/** A value as a JSON literal, cut short past 80 characters: a message names the value, it does not echo a prompt. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

/** zod's default messages; a schema's own error (project words) is none of these. */
const ZOD_WORDING = /^(Invalid|Too (big|small)|Unrecognized key|Expected|Required)/;

const WHERE: Readonly<Record<ValidationContext, string>> = { body: "the body", querystring: "the query string", params: "the path", headers: "the headers" };

/** The sentence for the first issue (and how many more there are), for a request refused by its route's schema. */
export function refusalOf(issues: readonly ValidationIssue[], context: ValidationContext, request: FastifyRequest): string {
  const first = issues[0];
  if (first === undefined) return "the request is not what this route takes; see /openapi.json for what to send";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length === 2 ? "" : "s"} after it)` : "";
  const source = { body: request.body, querystring: request.query, params: request.params, headers: request.headers }[context];
  const schema = (request.routeOptions.schema as Partial<Record<ValidationContext, ZodType>> | undefined)?.[context];
  return `${sentenceOf(first, context, source, schema)}${more}`;
}

function sentenceOf(issue: ValidationIssue, context: ValidationContext, source: unknown, schema: ZodType | undefined): string {
  const path = issue.instancePath.split("/").filter((part) => part !== "");
  if (issue.message !== undefined && !ZOD_WORDING.test(issue.message)) return issue.message;
  const value = valueAt(source, path);
  const name = path.length === 0 ? WHERE[context] : nameOf(context, path);
  const { params } = issue;
  switch (issue.keyword) {
    case "unrecognized_keys": {
      const keys = (params["keys"] as string[] | undefined) ?? [];
      const known = knownKeys(schema, path);
      const kind = context === "querystring" ? "query parameter" : context === "body" && path.length === 0 ? "field" : `${name}'s field`;
      const named = keys.map((key) => `${kind} ${quote(key)}`).join(", ");
      const near = keys.map((key) => closest(key, known)).find((found) => found !== undefined);
      return `${named} ${keys.length === 1 ? "is not one" : "are not ones"} ${context === "querystring" ? "this route takes" : `${WHERE[context]} takes`}; send only ${known.join(", ")}${near === undefined ? "" : ` (did you mean ${near}?)`}`;
    }
    case "invalid_type": {
      const expected = String(params["expected"] ?? "a value");
      if (value === undefined)
        return `${name} is missing; send ${path.length === 0 && context === "body" ? "a JSON object: the Run request (see /openapi.json)" : article(expected)}`;
      return `${name} ${quote(value)} is not ${article(expected)}; send ${article(expected)}`;
    }
    case "invalid_value": {
      const values = ((params["values"] as unknown[] | undefined) ?? []).map((v) => String(v));
      return `${name} ${quote(value)} is not one of ${values.join(", ")}; send one of them`;
    }
    case "too_small":
    case "too_big": {
      const small = issue.keyword === "too_small";
      const bound = String(params[small ? "minimum" : "maximum"]);
      const origin = params["origin"];
      const plural = bound === "1" ? "" : "s";
      const counted = origin === "string" ? ` ${bound} character${plural}` : origin === "array" ? ` ${bound} item${plural}` : "";
      const size = counted === "" ? (small ? "too small" : "too large") : small ? "too short" : "too long";
      return `${name} ${quote(value)} is ${size}; send ${small ? "at least" : "at most"}${counted === "" ? ` ${bound}` : counted}`;
    }
    default:
      return `${name} ${quote(value)} is not what ${WHERE[context]} takes there; see /openapi.json for what to send`;
  }
}

function nameOf(context: ValidationContext, path: readonly string[]): string {
  const dotted = path.join(".");
  if (context === "params" && dotted === "id") return "the Run id";
  if (context === "headers") return `header ${dotted}`;
  return dotted;
}

function valueAt(source: unknown, path: readonly string[]): unknown {
  let at = source;
  for (const part of path) at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  return at;
}

/** The keys an object schema at `path` takes, for "send only ...". */
function knownKeys(schema: ZodType | undefined, path: readonly string[]): string[] {
  let at: unknown = schema;
  for (const part of path) at = shapeOf(at)?.[part];
  return Object.keys(shapeOf(at) ?? {});
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let at = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown } | undefined;
  // Optional and default wrappers around an object: look through them.
  for (let i = 0; i < 4 && at !== undefined && at.shape === undefined && typeof at.unwrap === "function"; i++) at = at.unwrap() as typeof at;
  return at?.shape;
}

/** The known key within two edits of `key` (a typo, a plural), if there is one. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] ?? 0;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
