// The main job: one real claude Run and one real codex Run in the locked-down agent container,
// each printing the command a person could paste and its Outcome. With no API key in the
// environment, each runs against the stand-in model server (offline); with one, against the real API.

import { createAgentRunner, type AgentCli, type AgentRunnerOptions } from "../src/index.js";
import { AGENT_IMAGE, standInRunnerOptions, startStandInModel } from "../src/testing/index.js";

const IMAGE = process.env["AGENTCAGE_AGENT_IMAGE"] ?? AGENT_IMAGE;
const KEYS: Record<AgentCli, readonly string[]> = {
  claude: ["CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
};
const PROMPT = process.argv.slice(2).join(" ") || "What is the capital of France? Answer in one sentence.";

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

async function demo(cli: AgentCli): Promise<boolean> {
  const real = KEYS[cli].some((name) => (process.env[name] ?? "") !== "");
  const standIn = real ? undefined : await startStandInModel("plain");
  try {
    const options: AgentRunnerOptions = standIn === undefined
      ? { image: IMAGE, networks: ["bridge"] }
      : { image: IMAGE, ...standInRunnerOptions(standIn) };
    const runner = createAgentRunner(options);
    const request = { cli, maxTurns: 5, timeoutSeconds: 300 } as const;
    console.log(`\n# ${cli}, against ${standIn === undefined ? "the real API" : "the stand-in model (no key set)"}; the same Run by hand:`);
    const command = await runner.commandFor(request, PROMPT);
    console.log([command.command, ...command.redactedArgs].map(quote).join(" "));
    const outcome = await runner.run(request, PROMPT, {
      onEvent: (event) => event.type !== "result" && console.log(`  event: ${JSON.stringify(event).slice(0, 160)}`),
    });
    console.log(`# ${cli} Outcome:`);
    console.log(JSON.stringify({ ...outcome, stderr: outcome.stderr.slice(0, 500) }, null, 2));
    return outcome.ok;
  } finally {
    await standIn?.stop();
  }
}

const results = [await demo("claude"), await demo("codex")];
process.exitCode = results.every(Boolean) ? 0 : 1;
