// The main job: one real claude Run and one real codex Run in the locked-down agent container,
// each printing the command a person could paste and its Outcome. With no API key in the
// environment, each runs against the stand-in model server (offline); with one, against the real
// API under the `model` network policy: the egress proxy holds the key, the agent reaches only it.

import { createAgentRunner, type AgentCli } from "../src/index.js";
import { AGENT_IMAGE } from "../src/testing/index.js";
import { chooseDemoNetwork } from "./demo-network.js";
import { openDemoRunner } from "./demo-runner.js";

const IMAGE = process.env["AGENTCAGE_AGENT_IMAGE"] ?? AGENT_IMAGE;
const PROMPT = process.argv.slice(2).join(" ") || "What is the capital of France? Answer in one sentence.";

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

async function demo(cli: AgentCli): Promise<boolean> {
  const { network, warning } = chooseDemoNetwork(cli, process.env);
  if (warning !== undefined) console.error(`# warning: ${warning}`);
  const opened = await openDemoRunner(network, { image: IMAGE });
  try {
    const runner = createAgentRunner(opened.options);
    const request = { cli, maxTurns: 5, timeoutSeconds: 300 } as const;
    console.log(`\n# ${cli}, against ${opened.against}; the same Run by hand:`);
    const command = await runner.commandFor(request, PROMPT);
    console.log([command.command, ...command.redactedArgs].map(quote).join(" "));
    if (network.kind === "policy" && network.policy !== "none") {
      console.log(
        `# (run() also makes the Run's own network for policy ${network.policy}${network.policy === "model" ? " with the egress proxy on it, and hands the agent a per-Run token" : ""}; the command above has none)`,
      );
    }
    const outcome = await runner.run(request, PROMPT, {
      onEvent: (event) => event.type !== "result" && console.log(`  event: ${JSON.stringify(event).slice(0, 160)}`),
    });
    console.log(`# ${cli} Outcome:`);
    console.log(JSON.stringify({ ...outcome, stderr: outcome.stderr.slice(0, 500) }, null, 2));
    return outcome.ok;
  } finally {
    await opened.close();
  }
}

const results = [await demo("claude"), await demo("codex")];
process.exitCode = results.every(Boolean) ? 0 : 1;
