#!/usr/bin/env node
// The `agentcage` command's entry: the real process's streams, signals and exit status around the
// program (program.ts). A wrong command line exits 2 with a message that says what to write.

import { CommanderError } from "commander";
import { agentcageVersion } from "../runner/index.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";
import { buildProgram } from "./program.js";
import { startTracing } from "./tracing.js";
import { wantsLiveView } from "./view.js";

// A reader that goes away (`agentcage run ... 2>&1 | head -1`) makes every later write fail with
// EPIPE. Unhandled, that error would end the process mid-Run and leave its containers and Run
// directory behind; the Run goes on to its end instead (its Harvest still lands in --out), and what
// it would have printed there is dropped.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);

const io: ProgramIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  live: wantsLiveView(process.stderr, process.env),
  onInterrupt: (handler) => {
    process.on("SIGINT", handler);
    return () => void process.off("SIGINT", handler);
  },
  exit: (code) => process.exit(code),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
};

// Traces only with an OTLP endpoint in the environment; else the SDK is not even loaded.
const tracing = await startTracing(process.env, agentcageVersion);

let status: number = EXIT.completed;
try {
  await buildProgram(io, (code) => (status = code)).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version are not failures; commander has already printed what went wrong.
    status = error.exitCode === 0 ? EXIT.completed : EXIT.usage;
  } else if (error instanceof UsageError) {
    process.stderr.write(`agentcage: ${error.message}\n`);
    status = EXIT.usage;
  } else {
    process.stderr.write(`agentcage: ${error instanceof Error ? error.message : String(error)}\n`);
    status = EXIT.failed;
  }
}
// The spans of the Runs (and of a drained service) go out first, within a bound.
await tracing?.shutdown();
// Pending handles (a drained service, a stopped spinner) do not hold the exit status back.
process.exit(status);
