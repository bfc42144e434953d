// A Run's events as they arrive: the agent's messages, its tool calls with their arguments, the
// results, budget and stall warnings, the proxy's meter, the state changes. Each is text, shown
// with its control characters written out; nothing an agent printed becomes markup or a link.

import { dollars } from "../format";
import { shortened, shown } from "../text";

export type RunEvent = { readonly id: string | undefined; readonly type: string; readonly data: unknown };

/** Usage, budget and meter events replace the one before: only the newest of each kind is listed. */
const REPLACING = new Set(["usage", "budget", "metered"]);
const ARGUMENT_CHARACTERS = 400;
const TEXT_CHARACTERS = 4_000;

export function EventList({ events }: { events: readonly RunEvent[] }) {
  const newest = new Map<string, number>();
  for (const [index, event] of events.entries()) newest.set(kindOf(event), index);
  const shownEvents = events.filter((event, index) => !REPLACING.has(kindOf(event)) || newest.get(kindOf(event)) === index);
  if (shownEvents.length === 0) return <p class="empty">No events yet.</p>;
  return (
    <ol class="events">
      {shownEvents.map((event) => (
        <EventLine event={event} />
      ))}
    </ol>
  );
}

function kindOf(event: RunEvent): string {
  return event.type === "agent" ? String((event.data as { type?: unknown }).type) : event.type;
}

function EventLine({ event }: { event: RunEvent }) {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const kind = kindOf(event);
  const line = (label: string, body: string, tone = "") => (
    <li class={`event event-${kind.replace(/[^a-z_]/g, "")} ${tone}`} data-event={kind}>
      <span class="event-kind">{label}</span>
      <span class="event-body">{body}</span>
    </li>
  );
  if (event.type === "state") return line("state", String(data["state"]));
  if (event.type === "end") return line("end", `${String(data["reason"])}${typeof data["error"] === "string" ? `: ${shortened(data["error"], 400)}` : ""}`);
  switch (kind) {
    case "init":
      return line(
        "started",
        `session ${shortened(String(data["sessionId"] ?? "none"), 80)}${data["model"] === undefined ? "" : `, model ${shortened(String(data["model"]), 80)}`}`,
      );
    case "turn":
      return line("turn", String(data["number"]));
    case "assistant_text":
      return line("agent", shortened(String(data["text"] ?? ""), TEXT_CHARACTERS));
    case "tool_call":
      return line(`tool ${shortened(String(data["name"]), 60)}`, shortened(JSON.stringify(data["input"] ?? {}), ARGUMENT_CHARACTERS));
    case "tool_result":
      return line(
        data["isError"] === true ? "tool error" : "tool result",
        shortened(String(data["text"] ?? ""), ARGUMENT_CHARACTERS),
        data["isError"] === true ? "warn" : "",
      );
    case "usage": {
      const usage = (data["usage"] ?? {}) as Record<string, number>;
      return line("tokens", `${usage["inputTokens"] ?? 0} in, ${usage["outputTokens"] ?? 0} out`);
    }
    case "budget":
      return line("budget", `used ${shown(JSON.stringify(data["used"]))} of ${shown(JSON.stringify(data["caps"]))}`, "warn");
    case "egress_slow":
      return line("proxy slow", `no answer for ${String(data["waitedSeconds"])} s; it runs, so the Run waits`, "warn");
    case "stall_warning":
      return line("stall", `silent for ${String(data["silentSeconds"])} s; stopped at ${String(data["stallSeconds"])} s`, "warn");
    case "metered": {
      const usage = (data["usage"] ?? {}) as Record<string, number>;
      return line(
        "proxy meter",
        `${String(data["turns"])} calls, ${usage["inputTokens"] ?? 0} in, ${usage["outputTokens"] ?? 0} out, ${dollars(Number(data["costUsd"] ?? 0))}${Number(data["refused"] ?? 0) > 0 ? `, ${String(data["refused"])} refused` : ""}`,
      );
    }
    case "result": {
      const result = (data["result"] ?? {}) as Record<string, unknown>;
      return line("result", shortened(String(result["text"] ?? result["reason"] ?? ""), TEXT_CHARACTERS));
    }
    case "error":
      return line("error", shortened(String(data["message"] ?? ""), TEXT_CHARACTERS), "warn");
    default:
      return line(shortened(kind, 40), shortened(JSON.stringify(data), ARGUMENT_CHARACTERS));
  }
}
