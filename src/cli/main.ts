#!/usr/bin/env node
// The `agentcage` command. For now one subcommand, `serve`, which starts the orchestrator service;
// the rest of the command line comes with its own issue. Exit codes: 0 done, 1 failed, 2 misuse.

import { parseArgs } from "node:util";
import { serve, ServeError } from "../server/index.js";

const USAGE = `usage: agentcage serve [--host 127.0.0.1] [--port 8750] [--runtime-dir DIR] [--image IMAGE] [--slots N] [--stand-in]
  the token comes from AGENTCAGE_TOKEN or the file named by AGENTCAGE_TOKEN_FILE
  (on loopback without one, a token is made and written to <runtime-dir>/service/token)`;

function fail(message: string, code: number): never {
  process.stderr.write(`agentcage: ${message}\n`);
  process.exit(code);
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== "serve") fail(`${command === undefined ? "no command given" : `unknown command ${JSON.stringify(command)}`}\n${USAGE}`, 2);
  let values;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: {
        host: { type: "string" },
        port: { type: "string" },
        "runtime-dir": { type: "string" },
        image: { type: "string" },
        slots: { type: "string" },
        "queue-bound": { type: "string" },
        "drain-seconds": { type: "string" },
        "stand-in": { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`, 2);
  }
  const whole = (name: string, raw: string | undefined, min: number, max: number): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} ${JSON.stringify(raw)} is not a whole number from ${min} to ${max}`, 2);
    return n;
  };
  const port = whole("port", values.port, 0, 65_535);
  const slots = whole("slots", values.slots, 1, 64);
  const queueBound = whole("queue-bound", values["queue-bound"], 1, 100_000);
  const drainSeconds = whole("drain-seconds", values["drain-seconds"], 0, 86_400);
  const runtimeDir = values["runtime-dir"] ?? process.env["AGENTCAGE_RUNTIME_DIR"] ?? "/var/lib/agentcage";
  try {
    const running = await serve({
      runtimeDir,
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(port === undefined ? {} : { port }),
      ...(values.image === undefined ? {} : { image: values.image }),
      ...(slots === undefined ? {} : { slots }),
      ...(queueBound === undefined ? {} : { queueBound }),
      ...(drainSeconds === undefined ? {} : { drainGraceMs: drainSeconds * 1000 }),
      standIn: values["stand-in"] === true,
    });
    process.stderr.write(`agentcage serve: listening on ${running.url}${running.tokenFile === undefined ? "" : `; token in ${running.tokenFile}`}\n`);
    let stopping = false;
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.on(signal, () => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`agentcage serve: ${signal}: no new Runs; draining\n`);
        running.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      });
    }
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error), error instanceof ServeError ? 2 : 1);
  }
}

await main(process.argv.slice(2));
