// The main job: `agentcage serve` with its console on this machine's loopback, the stand-in model
// answering when no API key is set (the real APIs behind the egress proxy when one is), sessions
// kept so a Run can be resumed. Prints where the console is and the key to sign in with, then
// stays until Ctrl-C, which drains the service (running Runs get their grace) and ends it.

import { spawn } from "node:child_process";
import { createWriteStream, readFileSync, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DEMO_KEYS } from "./demo-network.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const COMMAND = join(REPO, "dist", "cli", "main.js");
const LISTENING = /agentcage serve: listening on (\S+?)(?:; token in (\S+))?$/;

/** Any key for either CLI in the environment: then the real APIs, each key held by the egress proxy. */
function realKeys(env: NodeJS.ProcessEnv): string[] {
  return Object.values(DEMO_KEYS)
    .flat()
    .filter((name) => (env[name] ?? "") !== "");
}

const keys = realKeys(process.env);
const model = keys.length === 0 ? ["--stand-in"] : ["--network-policy", "model"];
const child = spawn(process.execPath, [COMMAND, "serve", "--sessions", ...model, ...process.argv.slice(2)], { stdio: ["ignore", "inherit", "pipe"] });

// The service's own log lines (JSON, one a line) go to serve.log beside its token, in its runtime
// directory (each service its own); what it says to a person stays on the terminal. Lines from
// before it says where that is are held until then.
const held: string[] = [];
let log: WriteStream | undefined;
let said = false;
createInterface({ input: child.stderr }).on("line", (line) => {
  if (line.startsWith("{")) {
    if (log === undefined) held.push(line);
    else log.write(`${line}\n`);
    return;
  }
  process.stderr.write(`${line}\n`);
  const listening = said ? null : LISTENING.exec(line);
  if (listening === null) return;
  said = true;
  const [, url = "", tokenFile] = listening;
  const logFile = join(tokenFile === undefined ? tmpdir() : dirname(tokenFile), tokenFile === undefined ? `agentcage-serve-${child.pid}.log` : "serve.log");
  log = createWriteStream(logFile, { flags: "a" });
  for (const line of held.splice(0)) log.write(`${line}\n`);
  process.stdout.write(banner(new URL("/", url).href, tokenFile, logFile));
});

function banner(address: string, tokenFile: string | undefined, logFile: string): string {
  const key = tokenFile === undefined ? "the token in AGENTCAGE_TOKEN" : readFileSync(tokenFile, "utf8").trim();
  const against =
    keys.length === 0
      ? `the stand-in model (no API key is set; set ${DEMO_KEYS.claude.join(" or ")} or ${DEMO_KEYS.codex.join(" or ")} for the real ones)`
      : `the real APIs with ${keys.join(", ")}, held by the egress proxy (the agents never see them)`;
  const serviceArguments = process.argv.slice(2);
  const runtimeDir = serviceArguments.includes("--runtime-dir") ? ` --runtime-dir ${serviceArguments[serviceArguments.indexOf("--runtime-dir") + 1]}` : "";
  return [
    "",
    `  The agentcage console: ${address}`,
    `  Sign in with:          ${key}`,
    "                         the Operator's token: it sees every tenant, and a new one is made at each start",
    `  A tenant's own key:    node dist/cli/main.js keys create --tenant team-a --remote ${address.replace(/\/$/, "")}${runtimeDir}`,
    `  Agents run against:    ${against}`,
    `  The service's log:     ${logFile}`,
    "  Ctrl-C stops it: no new Runs, running ones get 30 s to finish.",
    "",
    "",
  ].join("\n");
}

// Ctrl-C reaches the service too (same process group); this process waits for its drain and ends with it.
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => child.kill("SIGTERM"));
child.on("close", (code, signal) => {
  if (!said) process.stderr.write("the service did not start; what it said is above\n");
  process.exit(code ?? (signal === null ? 1 : 130));
});
