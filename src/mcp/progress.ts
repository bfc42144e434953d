// Following a Run to its end: listen first, then replay what was persisted, so an event that lands
// between the two is neither lost nor doubled; each event is handed over once, in id order, and the
// `end` event (or the caller's abort) finishes. Each becomes a progress line for a person: its type
// and a short summary, never the whole of what the agent printed.

import type { DeskEvent, RunDesk } from "./desk.js";
import { isRefusal } from "./desk.js";
import { MAX_PROGRESS_MESSAGE_CHARACTERS } from "./limits.js";

/** Resolves once the Run's `end` event was handed over, or `signal` aborted, or the Run is unknown. */
export function followRun(desk: RunDesk, id: string, onEvent: (event: DeskEvent) => void, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    let seen = 0;
    let replaying = true;
    const pending: DeskEvent[] = [];
    const finish = () => {
      if (done) return;
      done = true;
      stop();
      signal.removeEventListener("abort", finish);
      resolve();
    };
    const deliver = (event: DeskEvent) => {
      if (done || event.id <= seen) return;
      seen = event.id;
      onEvent(event);
      if (event.type === "end") finish();
    };
    const stop = desk.listen(id, (event) => (replaying ? pending.push(event) : deliver(event)));
    if (signal.aborted) return finish();
    signal.addEventListener("abort", finish);
    desk.events(id).then(
      (events) => {
        if (isRefusal(events)) return finish();
        for (const event of events) deliver(event);
        replaying = false;
        for (const event of pending.splice(0)) deliver(event);
      },
      () => finish(),
    );
  });
}

/** One line for a person about one event: "state: running", "agent: tool_call Write", "end: completed". */
export function progressLine(event: DeskEvent): string {
  const data = (typeof event.data === "object" && event.data !== null ? event.data : {}) as Record<string, unknown>;
  const said = (value: unknown) => (typeof value === "string" ? value : undefined);
  let line: string;
  if (event.type === "state") line = `state: ${said(data["state"]) ?? "?"}`;
  else if (event.type === "end") line = `end: ${said(data["reason"]) ?? "?"}${data["ok"] === true ? " (ok)" : ""}`;
  else if (event.type === "agent") {
    const kind = said(data["type"]) ?? "event";
    const detail = said(data["name"]) ?? said(data["text"]) ?? said(data["message"]) ?? "";
    line = `agent: ${kind}${detail === "" ? "" : ` ${detail.replace(/\s+/g, " ").trim()}`}`;
  } else line = event.type;
  return line.length > MAX_PROGRESS_MESSAGE_CHARACTERS ? `${line.slice(0, MAX_PROGRESS_MESSAGE_CHARACTERS - 3)}...` : line;
}
