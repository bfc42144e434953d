// The one way a value a schema refused is told to whoever sent it: a sentence that names the field,
// quotes the value it was given (cut short) and says what to send instead. zod's own wording
// ("Invalid input", "Unrecognized key") never reaches a caller; a schema's own message, which says
// all that already, is passed on as it is. The service's 400s, its A2A answers, the agent request
// and the Agent Container declaration all speak through it.

/** One issue of a schema, as zod reports it (its code, where, its message, the rest of its fields). */
export type SchemaIssue = {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message?: string;
  readonly expected?: unknown;
  readonly values?: readonly unknown[];
  readonly keys?: readonly string[];
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly origin?: unknown;
};

/** How the sender knows the place of an issue. */
export type IssuePlace = {
  /** The field as the sender names it ("maxTurns", "the Run id", "metadata.budget"). */
  readonly name: string;
  /** The value it was sent there (undefined: it was missing). */
  readonly value: unknown;
  /** What takes the field, for "... is not one that X takes" ("the body", "the agent request"). */
  readonly taker: string;
  /** What an unknown key is called there ("field", "query parameter", "budget's field"). */
  readonly keyKind: string;
  /** The keys the object there takes, for "send only ..." and a near miss. */
  readonly known: readonly string[];
  /** What to send when the whole input is missing; default: a value of the expected type. */
  readonly missingWhole?: string;
  /** False where a value may be a secret (an Agent Container's env): the sentence names the field and never quotes what it held. Default true. */
  readonly shown?: boolean;
  /** Said after a refusal the schema has no words for ("; see /openapi.json for what to send"). */
  readonly otherwise?: string;
};

/** zod's default messages; a schema's own error (project words) is none of these. */
const ZOD_WORDING = /^(Invalid|Too (big|small)|Unrecognized key|Expected|Required)/;

/**
 * A value as a JSON literal, cut short past 80 characters: a message names the value, it does not
 * echo a prompt. One nested too deeply for JSON.stringify (which recurses) is named by its kind:
 * telling a refusal must never throw.
 */
export function quote(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `(${Array.isArray(value) ? "an array" : "an object"} nested too deeply to quote)`;
  }
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}

export function issueSentence(issue: SchemaIssue, place: IssuePlace): string {
  if (issue.message !== undefined && !ZOD_WORDING.test(issue.message)) return issue.message;
  const { name, value } = place;
  const said = place.shown === false ? "" : ` ${quote(value)}`;
  switch (issue.code) {
    case "unrecognized_keys": {
      const keys = issue.keys ?? [];
      const named = keys.map((key) => `${place.keyKind} ${quote(key)}`).join(", ");
      const near = keys.map((key) => closest(key, place.known)).find((found) => found !== undefined);
      return `${named} ${keys.length === 1 ? "is not one" : "are not ones"} ${place.taker} takes; send only ${place.known.join(", ")}${near === undefined ? "" : ` (did you mean ${near}?)`}`;
    }
    case "invalid_type": {
      const expected = String(issue.expected ?? "a value");
      if (value === undefined) return `${name} is missing; send ${issue.path.length === 0 ? (place.missingWhole ?? article(expected)) : article(expected)}`;
      return `${name}${said} is not ${article(expected)}; send ${article(expected)}`;
    }
    case "invalid_value": {
      const values = (issue.values ?? []).map((v) => String(v));
      return `${name}${said} is not one of ${values.join(", ")}; send one of them`;
    }
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const bound = String(small ? issue.minimum : issue.maximum);
      const plural = bound === "1" ? "" : "s";
      const counted = issue.origin === "string" ? ` ${bound} character${plural}` : issue.origin === "array" ? ` ${bound} item${plural}` : "";
      const size = counted === "" ? (small ? "too small" : "too large") : small ? "too short" : "too long";
      return `${name}${said} is ${size}; send ${small ? "at least" : "at most"}${counted === "" ? ` ${bound}` : counted}`;
    }
    default:
      return `${name}${said} is not what ${place.taker} takes there${place.otherwise ?? ""}`;
  }
}

/** The value at `path` inside `source`; undefined where there is none. */
export function valueAt(source: unknown, path: readonly PropertyKey[]): unknown {
  let at = source;
  for (const part of path) at = typeof at === "object" && at !== null ? (at as Record<PropertyKey, unknown>)[part] : undefined;
  return at;
}

/** The keys an object schema (zod's, or anything with a `shape`) takes at `path`, looking through optional and default wrappers. */
export function knownKeys(schema: unknown, path: readonly PropertyKey[]): string[] {
  let at: unknown = schema;
  for (const part of path) at = shapeOf(at)?.[part as string];
  return Object.keys(shapeOf(at) ?? {});
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let at = schema as { shape?: Record<string, unknown>; unwrap?: () => unknown } | undefined;
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
