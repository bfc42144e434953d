// Server-Sent Events with a bearer header: EventSource cannot send one, so the console reads the
// stream with fetch and eventsource-parser, and reconnects after a drop with Last-Event-ID as
// EventSource would. A 204 (the Run's end was already seen) or a closed stream after `end` stops it.

import { createParser, type EventSourceMessage } from "eventsource-parser";

export type StreamOptions = {
  readonly key: string;
  readonly onMessage: (message: EventSourceMessage) => void;
  /** Told when the stream drops and when it is back, so the page can say so. */
  readonly onConnection?: (connected: boolean) => void;
  /** Whether the stream is over after this message (a Run's `end`). */
  readonly isLast?: (message: EventSourceMessage) => boolean;
  /** The id to resume after on the first connection (Last-Event-ID). */
  readonly after?: string;
};

const RECONNECT_MS = 1_000;

/** Follows `path` until stopped or finished; returns the stop. */
export function follow(path: string, options: StreamOptions): () => void {
  const aborted = new AbortController();
  let lastId = options.after;
  let finished = false;
  const connect = async (): Promise<void> => {
    while (!finished && !aborted.signal.aborted) {
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${options.key}`, accept: "text/event-stream" };
        if (lastId !== undefined) headers["last-event-id"] = lastId;
        const response = await fetch(path, { headers, signal: aborted.signal, cache: "no-store" });
        if (response.status === 204 || (response.status >= 400 && response.status < 500)) return;
        if (!response.ok || response.body === null) throw new Error(`the stream answered ${response.status}`);
        options.onConnection?.(true);
        const parser = createParser({
          onEvent: (message) => {
            if (message.id !== undefined) lastId = message.id;
            options.onMessage(message);
            if (options.isLast?.(message) === true) finished = true;
          },
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        if (aborted.signal.aborted) return;
      }
      if (finished || aborted.signal.aborted) return;
      options.onConnection?.(false);
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  };
  void connect();
  return () => aborted.abort();
}
