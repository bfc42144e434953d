// The proxy program's configuration, read from its environment (the way compose hands it over):
// one variable per option, each refused by name with its value quoted when it cannot mean
// anything. The control secret is read from a file (a compose secret), or from stdin when the
// runtime hands it over through the engine (stdin-secret.ts), never from a variable, so it shows in
// no `docker inspect`.

import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { connectTarget } from "./connect-target.js";
import type { EgressProxyOptions } from "./options.js";
import type { EgressControlEndpointOptions } from "./control.js";
import type { ModelProvider } from "../plan/index.js";
import { EGRESS_PROVIDER_NAMES, EGRESS_PROVIDERS } from "./providers/index.js";
import { EgressArgumentError } from "./run.js";
import { readSecretLine } from "./stdin-secret.js";

/** Where the program listens for agents by default: every address of its own container, this port. */
export const DEFAULT_EGRESS_PORT = 8751;
/** The control socket inside the proxy's container; share its directory with the orchestrator only. */
export const DEFAULT_CONTROL_SOCKET = "/run/agentcage/egress.sock";

export const EGRESS_VARIABLES = {
  host: "AGENTCAGE_EGRESS_HOST",
  port: "AGENTCAGE_EGRESS_PORT",
  allowlist: "AGENTCAGE_EGRESS_ALLOWLIST",
  controlSocket: "AGENTCAGE_EGRESS_CONTROL_SOCKET",
  controlAddress: "AGENTCAGE_EGRESS_CONTROL_ADDRESS",
  controlSecretFile: "AGENTCAGE_EGRESS_CONTROL_SECRET_FILE",
  /**
   * "1": the control secret is the first line of stdin. A switch rather than a secret file of
   * /dev/stdin: the entry (egress-entrypoint.sh) must know not to make a secret file of its own, and a
   * file is read again after a restart where stdin is not.
   */
  controlSecretStdin: "AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN",
  logLevel: "AGENTCAGE_EGRESS_LOG_LEVEL",
} as const;

export type EgressProgramConfig = {
  readonly proxy: Omit<EgressProxyOptions, "logger" | "onBreach">;
  readonly control: EgressControlEndpointOptions;
  readonly logLevel: string;
};

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** `stdin` is read only when the environment says the secret comes there. */
export async function egressConfigFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  stdin: () => Readable = () => process.stdin,
): Promise<EgressProgramConfig> {
  const v = EGRESS_VARIABLES;
  const get = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const portText = get(v.port);
  const port = portText === undefined ? DEFAULT_EGRESS_PORT : Number(portText);
  if (!/^\d{1,5}$/.test(portText ?? "0") || port > 65535) {
    throw new EgressArgumentError(`${v.port} ${JSON.stringify(portText)} is not a port; set 1 to 65535, or leave it unset for ${DEFAULT_EGRESS_PORT}`);
  }
  const allowlist = (get(v.allowlist) ?? "").split(/[\s,]+/).filter((entry) => entry !== "");
  allowlist.forEach((entry) => {
    if (connectTarget(entry) === undefined) {
      throw new EgressArgumentError(
        `${v.allowlist} holds ${JSON.stringify(entry)}, which is not host:port; list host:port pairs separated by commas, such as "example.com:443"`,
      );
    }
  });
  // Each provider's own variable (its file's upstreamVariable), when set.
  const upstreams: Partial<Record<ModelProvider, string>> = {};
  for (const provider of EGRESS_PROVIDER_NAMES) {
    const upstream = get(EGRESS_PROVIDERS[provider].upstreamVariable);
    if (upstream !== undefined) upstreams[provider] = upstream;
  }

  const secret = await controlSecret(get(v.controlSecretFile), get(v.controlSecretStdin), stdin);
  const address = get(v.controlAddress);
  const socket = get(v.controlSocket);
  if (address !== undefined && socket !== undefined) {
    throw new EgressArgumentError(`${v.controlAddress} and ${v.controlSocket} are both set; set one place for the control endpoint`);
  }
  let control: EgressControlEndpointOptions;
  if (address !== undefined) {
    const target = connectTarget(address);
    if (target === undefined)
      throw new EgressArgumentError(
        `${v.controlAddress} ${JSON.stringify(address)} is not host:port; write the address only the orchestrator reaches, such as "10.0.9.2:8752"`,
      );
    control = { host: target.host, port: target.port, secret };
  } else {
    control = { socketPath: socket ?? DEFAULT_CONTROL_SOCKET, secret };
  }
  const logLevel = get(v.logLevel) ?? "info";
  if (!LOG_LEVELS.includes(logLevel))
    throw new EgressArgumentError(`${v.logLevel} ${JSON.stringify(logLevel)} is not a level; set one of ${LOG_LEVELS.join(", ")}`);
  return {
    proxy: { host: get(v.host) ?? "0.0.0.0", port, upstreams, ...(allowlist.length === 0 ? {} : { allowlist }) },
    control,
    logLevel,
  };
}

/** The control secret from its file, or from stdin under the switch; exactly one of the two. */
async function controlSecret(secretFile: string | undefined, fromStdin: string | undefined, stdin: () => Readable): Promise<string> {
  const v = EGRESS_VARIABLES;
  if (fromStdin !== undefined && fromStdin !== "0" && fromStdin !== "1")
    throw new EgressArgumentError(`${v.controlSecretStdin} ${JSON.stringify(fromStdin)} is neither 1 (on) nor 0 (off); set one of those`);
  if (fromStdin === "1") {
    if (secretFile !== undefined)
      throw new EgressArgumentError(`${v.controlSecretFile} and ${v.controlSecretStdin} are both set; set one place the control secret comes from`);
    return readSecretLine(stdin(), v.controlSecretStdin);
  }
  if (secretFile === undefined) {
    throw new EgressArgumentError(
      `${v.controlSecretFile} is not set; name a file holding the control secret the orchestrator also holds (a compose secret), or set ${v.controlSecretStdin}=1 and write it on stdin`,
    );
  }
  try {
    return (await readFile(secretFile, "utf8")).trim();
  } catch (error) {
    throw new EgressArgumentError(
      `${v.controlSecretFile} ${JSON.stringify(secretFile)} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); mount the control secret there`,
    );
  }
}
