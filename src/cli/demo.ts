// The main job until the real agents land: one Run of the sample agent through run() with every
// security default on, printing the command a person could paste and the Outcome it ended with.

import { createAgentContainerRuntime } from "../index.js";
import { sampleAgentPlan } from "./sample-agent.js";

const IMAGE = process.env["AGENTCAGE_DEMO_IMAGE"] ?? "agentcage-test:latest";

const runtime = createAgentContainerRuntime({
  container: { image: IMAGE, env: { DEMO_TOKEN: "demo-secret-value-never-shown" }, timeoutSeconds: 60 },
  run: sampleAgentPlan,
});

const prompt = { text: process.argv.slice(2).join(" ") || "Summarize the files in /work." };
const command = runtime.commandFor(prompt);
console.log("# The same Run by hand (env values come from the environment, never argv):");
console.log([command.command, ...command.redactedArgs].map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" "));
const outcome = await runtime.run(prompt);
console.log("# Outcome:");
console.log(JSON.stringify(outcome, null, 2));
process.exitCode = outcome.ok ? 0 : 1;
