// What a refused request is told, in the project's words: one sentence naming the field or the
// parameter, quoting the value it was sent, and saying what to send instead. zod's own wording
// ("Unrecognized key", "Invalid input") never reaches a caller; a schema's own message (the agent
// request's, which already says all that) is passed on as it is.

import type { FastifyRequest } from "fastify";
import type { ZodType } from "zod";
import { issueSentence, knownKeys, valueAt } from "../../errors/index.js";

/** One issue as fastify-type-provider-zod hands it over: zod's code, where, zod's message, the rest of the issue. */
export type ValidationIssue = {
  readonly keyword: string;
  readonly instancePath: string;
  readonly message?: string;
  readonly params: Readonly<Record<string, unknown>>;
};

/** Where the value was: the body, the query string, the path, the headers. */
export type ValidationContext = "body" | "querystring" | "params" | "headers";

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
  const name = path.length === 0 ? WHERE[context] : nameOf(context, path);
  const keyKind = context === "querystring" ? "query parameter" : context === "body" && path.length === 0 ? "field" : `${name}'s field`;
  return issueSentence(
    { ...issue.params, code: issue.keyword, path, ...(issue.message === undefined ? {} : { message: issue.message }) },
    {
      name,
      value: valueAt(source, path),
      taker: context === "querystring" ? "this route" : WHERE[context],
      keyKind,
      known: knownKeys(schema, path),
      ...(context === "body" ? { missingWhole: "a JSON object: the Run request (see /openapi.json)" } : {}),
      otherwise: "; see /openapi.json for what to send",
    },
  );
}

function nameOf(context: ValidationContext, path: readonly string[]): string {
  const dotted = path.join(".");
  if (context === "params" && dotted === "id") return "the Run id";
  if (context === "headers") return `header ${dotted}`;
  return dotted;
}
