// Server-sent events as both APIs frame them: `event: <type>` then one `data:` line of JSON.
// Invariant: the data line is JSON.stringify output, which escapes every LF, so one event is
// always exactly one data line.
import type { ServerResponse } from "node:http";

export function startEventStream(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...headers,
  });
}

export function writeEvent(res: ServerResponse, type: string, data: unknown): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Splits text into a few deltas, on code-point boundaries, so clients really reassemble it. */
export function deltasOf(text: string, parts = 3): string[] {
  const points = Array.from(text);
  const size = Math.max(1, Math.ceil(points.length / parts));
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}
