// `agentcage mcp`: its options. The MCP server over stdio runs its Runs itself, through an
// in-process service with no HTTP. Its records go under --runtime-dir when given; by default each
// process takes a directory of its own (an MCP client starts one per session, and two services on
// one directory would each take the other's running Runs for interrupted ones), removed at its end.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type Command, Option } from "commander";
import type { Logger } from "pino";
import { AGENT_IMAGE, NETWORK_POLICIES, type NetworkPolicy } from "../runner/index.js";
import { limits as runtimeLimits } from "../runtime/index.js";
import type { ServeOptions } from "../server/index.js";
import { checkNetworkFlags } from "./command-flags.js";
import type { ProgramIo } from "./io.js";
import { absoluteDirectory, collect, defaultRuntimeDir, wholeNumber } from "./options.js";

type McpFlags = {
  runtimeDir?: string;
  image: string;
  slots: number;
  standIn?: boolean;
  sessions?: boolean;
  networkPolicy?: NetworkPolicy;
  allow?: string[];
  verbose?: boolean;
};

export function addMcpCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  program
    .command("mcp")
    .description("be an MCP server over stdio: an agent hands tasks to caged agents with run_agent (docs/mcp.md)")
    .option(
      "--runtime-dir <dir>",
      "its Runs' records and the Staging Directory, kept after it ends (default: a directory of this process's own under <AGENTCAGE_RUNTIME_DIR>/mcp, removed at its end)",
      absoluteDirectory("--runtime-dir"),
    )
    .option("--image <image>", "the agent image", io.env["AGENTCAGE_IMAGE"] || AGENT_IMAGE)
    .option("--slots <n>", "Runs at once", wholeNumber("--slots", 1, runtimeLimits.MAX_CONCURRENT_RUNS), 2)
    .option("--stand-in", "run every agent against the stand-in model (no key needed)")
    .option("--sessions", "keep each Run's session so a later run_agent can resume it (resumeSession)")
    .addOption(new Option("--network-policy <policy>", "what every agent may reach: none (default), model, allowlist, open").choices([...NETWORK_POLICIES]))
    .addOption(new Option("--allow <host:port>", "with --network-policy allowlist: a host agents may reach over HTTPS (repeatable)").argParser(collect))
    .option("--verbose", "the service's log lines on stderr (JSON, as serve's); without it, stderr has its sentences only")
    .action(async (flags: McpFlags) => {
      const { mcpCommand } = await import("./mcp.js");
      const { pino } = await import("pino");
      const own = flags.runtimeDir === undefined ? join(defaultRuntimeDir(io.env), "mcp", `${process.pid}-${randomBytes(4).toString("hex")}`) : undefined;
      const logger = pino({ name: "agentcage-mcp", level: flags.verbose === true ? "info" : "silent" }, pino.destination(2));
      settle(await mcpCommand(mcpSettings(flags, flags.runtimeDir ?? (own as string), logger), io, own !== undefined));
    });
}

function mcpSettings(flags: McpFlags, runtimeDir: string, logger: Logger): ServeOptions {
  checkNetworkFlags({
    standIn: flags.standIn === true,
    ...(flags.networkPolicy === undefined ? {} : { networkPolicy: flags.networkPolicy }),
    ...(flags.allow === undefined ? {} : { allow: flags.allow }),
  });
  return {
    listen: false,
    runtimeDir,
    image: flags.image,
    slots: flags.slots,
    standIn: flags.standIn === true,
    sessions: flags.sessions === true,
    logger,
    ...(flags.networkPolicy === undefined ? {} : { networkPolicy: flags.networkPolicy }),
    ...(flags.allow === undefined ? {} : { allowlist: flags.allow }),
  };
}
