// The egress proxy as a program, for its own container: configuration from the environment
// (environment.ts), the agents' port and the control endpoint, one JSON log line per request on
// stdout, and a clean stop on SIGTERM or SIGINT. A configuration that cannot mean anything exits 2
// with one sentence naming the variable.

import { pino } from "pino";
import { startEgressControlEndpoint } from "./control.js";
import { egressConfigFromEnvironment } from "./environment.js";
import { createEgressProxy } from "./proxy.js";
import { EgressArgumentError } from "./run.js";

async function main(): Promise<void> {
  const config = await egressConfigFromEnvironment(process.env);
  const logger = pino({ name: "agentcage-egress", level: config.logLevel });
  const proxy = await createEgressProxy({ ...config.proxy, logger });
  const control = await startEgressControlEndpoint(proxy, { ...config.control, logger });
  logger.info(
    { url: proxy.url, port: proxy.port, control: control.socketPath ?? control.url, allowlist: config.proxy.allowlist ?? [] },
    "egress proxy listening",
  );
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "egress proxy stopping");
    void Promise.all([control.close(), proxy.close()]).then(() => process.exit(0));
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`agentcage egress proxy: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof EgressArgumentError ? 2 : 1);
});
