// agentcage/client in use, the example of docs/service.md as a program: one prompt to an `agentcage serve`,
// the agent's words printed as they come, then how the Run ended. A dropped connection is taken
// up where it left off (Last-Event-ID); a refusal (a wrong token: 401) is a typed ServiceError.
// Run: npm run build:tools && AGENTCAGE_TOKEN=... node dist-tools/examples/client.js "a prompt"

import { createClient, ServiceError } from "../src/client/index.js"; // in your project: "agentcage/client"

const token = process.env["AGENTCAGE_TOKEN"] ?? "";
if (token === "") {
  console.error("set AGENTCAGE_TOKEN to the service's token (agentcage serve writes it to <runtime-dir>/service/token)");
  process.exit(2);
}
const client = createClient({ baseUrl: process.env["AGENTCAGE_URL"] ?? "http://127.0.0.1:8750", token });
const prompt = process.argv.slice(2).join(" ") || "What is the capital of France?";

try {
  const run = await client.submit({ cli: "claude", prompt, labels: { from: "example" } });
  console.error(`Run ${run.id}: ${run.state}`);
  for await (const event of client.follow(run.id)) {
    if (event.type === "state") console.error(`Run ${run.id}: ${event.data.state}`);
    if (event.type === "agent" && event.data.type === "assistant_text") console.log(event.data.text);
    if (event.type === "end") {
      console.error(`Run ${run.id}: ${event.data.reason}${event.data.error === undefined ? "" : ` (${event.data.error})`}`);
      process.exitCode = event.data.ok ? 0 : 1;
    }
  }
} catch (error) {
  if (!(error instanceof ServiceError)) throw error;
  // error.status is the HTTP status (undefined when nothing answered), error.code the catalogue's code.
  console.error(`agentcage: ${error.message}`);
  process.exitCode = error.status === 401 ? 2 : 3;
}
