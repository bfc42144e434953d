// The main job: `agentcage serve` with its console on this machine's loopback, the stand-in model
// answering when no API key is set (the real APIs behind the egress proxy when one is), sessions
// kept so a Run can be resumed. Prints where the console is and the key to sign in with, then
// stays until Ctrl-C, which drains the service (running Runs get their grace) and ends it.

import { spawn } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DEMO_KEYS } from "./demo-network.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const COMMAND = join(REPO, "dist", "cli", "main.js");
const LISTENING = /agentcage serve: listening on (\S+); token in (\S+)/;
/** The service's own log lines (JSON, one a line) go here; what it says to a person stays on the terminal. */
const LOG = join(tmpdir(), "agentcage-serve.log");

/** Any key for either CLI in the environment: then the real APIs, each key held by the egress proxy. */
function realKeys(env: NodeJS.ProcessEnv): string[] {
  return Object.values(DEMO_KEYS)
    .flat()
    .filter((name) => (env[name] ?? "") !== "");
}

const keys = realKeys(process.env);
const model = keys.length === 0 ? ["--stand-in"] : ["--network-policy", "model"];
const child = spawn(process.execPath, [COMMAND, "serve", "--sessions", ...model, ...process.argv.slice(2)], { stdio: ["ignore", "inherit", "pipe"] });

const log = createWriteStream(LOG, { flags: "a" });
let said = false;
createInterface({ input: child.stderr }).on("line", (line) => {
  if (line.startsWith("{")) {
    log.write(`${line}\n`);
    return;
  }
  process.stderr.write(`${line}\n`);
  const listening = said ? null : LISTENING.exec(line);
  if (listening === null) return;
  said = true;
  const [, url = "", tokenFile = ""] = listening;
  const token = readFileSync(tokenFile, "utf8").trim();
  const against =
    keys.length === 0
      ? `the stand-in model (no API key is set; set ${DEMO_KEYS.claude.join(" or ")} or ${DEMO_KEYS.codex.join(" or ")} for the real ones)`
      : `the real APIs with ${keys.join(", ")}, held by the egress proxy (the agents never see them)`;
  process.stdout.write(
    [
      "",
      `  The agentcage console: ${new URL("/", url).href}`,
      `  Sign in with:          ${token}`,
      "                         (the Operator's key: it sees every tenant; agentcage keys create makes a tenant's)",
      `  Agents run against:    ${against}`,
      `  The service's log:     ${LOG}`,
      "  Ctrl-C stops it: no new Runs, running ones get 30 s to finish.",
      "",
      "",
    ].join("\n"),
  );
});

// Ctrl-C reaches the service too (same process group); this process waits for its drain and ends with it.
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("close", (code, signal) => {
  if (!said) process.stderr.write("the service did not start; what it said is above\n");
  process.exit(code ?? (signal === null ? 1 : 130));
});
