// The stand-in model as its own process (e.g. inside a container with no network): SCENARIO and
// PORT from the environment (HOST optional, default 127.0.0.1). Prints one JSON line when
// listening and one per request (credential headers already "[set]"); SIGTERM/SIGINT close it.
import { startStandInModel } from "./server.js";
import { SCENARIOS, isScenario } from "./scenarios.js";

const scenario = process.env["SCENARIO"] ?? "plain";
if (!isScenario(scenario)) {
  process.stderr.write(`SCENARIO ${JSON.stringify(scenario)} is not a stand-in scenario; use one of ${SCENARIOS.join(", ")}\n`);
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
    process.stdout.write(`${JSON.stringify({ event: "request", method: request.method, path: request.path, query: request.query, api: request.api })}\n`);
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
