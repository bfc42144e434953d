// A process of its own that runs one Run with the library's default options (from the built
// dist/), for tests of what one process may do to another's Runs. Argument: a JSON object with
// runtimeDir, image, seconds (how long the agent sleeps), and optionally script (the agent's sh
// script instead), timeoutSeconds, stopGraceSeconds and runFiles. Prints its session id, then the Outcome.
import { createAgentContainerRuntime } from "../../dist/index.js";
import { pino } from "pino";

const { runtimeDir, image, seconds, script, timeoutSeconds, stopGraceSeconds, runFiles } = JSON.parse(process.argv[2] ?? "{}");
const runtime = createAgentContainerRuntime({
  container: {
    image,
    staging: { runtimeDir },
    logger: pino({ level: "silent" }),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(stopGraceSeconds === undefined ? {} : { limits: { stopGraceSeconds } }),
  },
  run: () => ({
    args: ["sh", "-c", script ?? `sleep ${seconds}; echo ok`],
    stdin: "",
    outcome: async (stdout) => {
      let text = "";
      for await (const chunk of stdout) text += Buffer.from(chunk).toString();
      return { ok: text.trim() === "ok", text };
    },
  }),
  ...(runFiles === undefined ? {} : { runFiles }),
});
process.stdout.write(`${JSON.stringify({ session: runtime.session })}\n`);
const outcome = await runtime.run({ text: "" });
process.stdout.write(`${JSON.stringify({ outcome })}\n`);
