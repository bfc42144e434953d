// Splits a byte stream into JSON-RPC lines and holds at most maxBytes of any one of them: a longer
// line is not kept but counted to its newline, and only its top-level "id" is read on the way past,
// so that its refusal can answer the request it was. Invariant: whatever the stream sends, memory
// held is bounded by maxBytes plus a few bytes of the id.

const NEWLINE = 0x0a;

export type MessageLine =
  | { readonly kind: "line"; readonly text: string }
  /** `id`: the message's top-level "id" when it had one that is a string or a number. */
  | { readonly kind: "oversized"; readonly bytes: number; readonly id?: string | number };

export type MessageLines = {
  /** The lines this chunk ends, in order; the rest is held (or counted) until its newline. */
  readonly push: (chunk: Buffer) => MessageLine[];
  /** Forgets what is held. */
  readonly clear: () => void;
};

export function messageLines(maxBytes: number): MessageLines {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let oversized: { bytes: number; scanner: IdScanner } | undefined;
  const take = (piece: Buffer): void => {
    if (oversized === undefined && heldBytes + piece.length <= maxBytes) {
      held.push(piece);
      heldBytes += piece.length;
      return;
    }
    if (oversized === undefined) {
      oversized = { bytes: 0, scanner: idScanner() };
      for (const kept of held) take(kept);
      held = [];
      heldBytes = 0;
    }
    oversized.bytes += piece.length;
    oversized.scanner.feed(piece);
  };
  const clear = (): void => {
    held = [];
    heldBytes = 0;
    oversized = undefined;
  };
  const push = (chunk: Buffer): MessageLine[] => {
    const lines: MessageLine[] = [];
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      take(chunk.subarray(from, at));
      from = at + 1;
      if (oversized === undefined) lines.push({ kind: "line", text: Buffer.concat(held, heldBytes).toString("utf8").replace(/\r$/, "") });
      else {
        const id = oversized.scanner.id();
        lines.push({ kind: "oversized", bytes: oversized.bytes, ...(id === undefined ? {} : { id }) });
      }
      clear();
    }
    if (from < chunk.length) take(chunk.subarray(from));
    return lines;
  };
  return { push, clear };
}

type IdScanner = { readonly feed: (bytes: Buffer) => void; readonly id: () => string | number | undefined };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
/** Bytes of a key, or of the id's value, that the scanner keeps: an id is short. */
const MAX_TOKEN_BYTES = 256;

/**
 * The top-level "id" of a JSON object read byte by byte as it goes past: keys and values of the
 * outer object are told apart by depth and by the colon; what is deeper, or inside another string,
 * is skipped. Only an id that JSON.parse reads as a string or a finite number counts.
 */
function idScanner(): IdScanner {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let expectKey = false;
  let keyBytes: number[] | undefined; // the outer object's key being read
  let key: unknown; // the last key read, until its colon
  let idBytes: number[] | undefined; // the value of "id" being read
  let found: string | number | undefined;
  const keep = (byte: number) => {
    const token = keyBytes ?? idBytes;
    if (token !== undefined && token.length <= MAX_TOKEN_BYTES) token.push(byte);
  };
  const endId = () => {
    const value = idBytes === undefined ? undefined : parsed(idBytes);
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) found = value;
    idBytes = undefined;
  };
  const feed = (bytes: Buffer) => {
    for (const byte of bytes) {
      if (inString) {
        if (depth === 1) keep(byte);
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (keyBytes !== undefined) {
            key = parsed(keyBytes);
            keyBytes = undefined;
            expectKey = false;
          }
        }
        continue;
      }
      if (byte === QUOTE) {
        inString = true;
        if (depth === 1 && expectKey) keyBytes = [];
        if (depth === 1) keep(byte);
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        // Only an object at the top has keys. What is deeper is not kept: an id that opens one reads as no id.
        if (depth === 0) expectKey = byte === OPEN_OBJECT;
        depth += 1;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (depth === 1) endId();
        depth = Math.max(0, depth - 1);
      } else if (depth === 1 && byte === COMMA) {
        endId();
        expectKey = true;
      } else if (depth === 1 && byte === COLON) {
        idBytes = key === "id" ? [] : undefined;
        key = undefined;
      } else if (depth === 1) keep(byte);
    }
  };
  return { feed, id: () => found };
}

function parsed(bytes: readonly number[]): unknown {
  if (bytes.length > MAX_TOKEN_BYTES) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    return undefined;
  }
}
