// The stand-in model as its own process (e.g. inside a container with no network): SCENARIO and
// PORT from the environment (HOST optional, default 127.0.0.1). Prints one JSON line when
// listening and one per request (credential headers already "[set]"); SIGTERM/SIGINT close it.
import { startStandInModel } from "./server.js";
import { SCENARIO_DESCRIPTIONS, SCENARIOS, isScenario } from "./scenarios.js";

const scenario = process.env["SCENARIO"] ?? "plain";
if (!isScenario(scenario)) {
  process.stderr.write(`SCENARIO ${JSON.stringify(scenario)} is not a stand-in scenario; use one of ${SCENARIOS.join(", ")}\n`);
  for (const known of SCENARIOS) process.stderr.write(`  ${known}: ${SCENARIO_DESCRIPTIONS[known]}\n`);
  process.exit(2);
}
const portText = process.env["PORT"] ?? "0";
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`PORT ${JSON.stringify(portText)} is not a port number; use 0 to 65535 (0 picks a free one)\n`);
  process.exit(2);
}

const model = await startStandInModel({
  scenario,
  port,
  host: process.env["HOST"] ?? "127.0.0.1",
  onRequest: (request) => {
    const line = {
      event: "request",
      method: request.method,
      path: request.path,
      query: request.query,
      api: request.api,
      history: historyOf(request.body),
      ...(request.credentialSha256 === undefined ? {} : { credentialSha256: request.credentialSha256 }),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  },
});
process.stdout.write(`${JSON.stringify({ event: "listening", url: model.url, port: model.port, scenario })}\n`);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    model.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/**
 * The conversation a request carries (Anthropic `messages`, OpenAI `input`), one short entry per
 * turn: enough for a test to see that a resumed session sent the earlier turns again.
 */
function historyOf(body: unknown): Array<{ role: string; text: string }> | undefined {
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const turns = Array.isArray(fields["messages"]) ? fields["messages"] : Array.isArray(fields["input"]) ? fields["input"] : undefined;
  if (turns === undefined) return undefined;
  return turns.map((turn: unknown) => {
    const t = typeof turn === "object" && turn !== null ? (turn as Record<string, unknown>) : {};
    return { role: typeof t["role"] === "string" ? t["role"] : String(t["type"] ?? "?"), text: textOf(t["content"]) };
  });
}

/** The start of each text part of a turn (a CLI may put a long reminder before the prompt). */
function textOf(content: unknown): string {
  const excerpt = (text: string) => text.slice(0, 120);
  if (typeof content === "string") return excerpt(content);
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) =>
      typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? excerpt((part as { text: string }).text) : "",
    )
    .filter((text) => text !== "")
    .join(" | ");
}
