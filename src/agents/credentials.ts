// Finds the one credential a Run of a CLI gets: from the orchestrator's environment, else from a
// secrets directory (`<dir>/<lowercase name>`, mode 0600). A subscription credential wins over an
// API key. The kind is reportable; the value goes only to the container's environment and the masker.

import { open } from "node:fs/promises";
import { join } from "node:path";
import { constants } from "node:fs";
import type { AgentCli } from "./request.js";
import { MAX_CREDENTIAL_BYTES } from "./limits.js";

export type CredentialKind = "oauth_token" | "api_key" | "none";

export type Credential =
  | { readonly kind: "none"; readonly looked: readonly string[] }
  | {
      readonly kind: Exclude<CredentialKind, "none">;
      /** The variable the agent reads it from. */
      readonly variable: string;
      readonly source: "environment" | "secrets_directory";
      /** Secret: for the container's environment and the masker only. */
      readonly value: string;
    };

/** Per CLI, in order of preference: subscription first, then API keys. */
export const CREDENTIAL_VARIABLES: Readonly<Record<AgentCli, ReadonlyArray<readonly [string, Exclude<CredentialKind, "none">]>>> = {
  claude: [
    ["CLAUDE_CODE_OAUTH_TOKEN", "oauth_token"],
    ["ANTHROPIC_API_KEY", "api_key"],
  ],
  codex: [
    ["OPENAI_API_KEY", "api_key"],
    ["CODEX_API_KEY", "api_key"],
  ],
};

export class CredentialError extends Error {
  override readonly name = "CredentialError";
}

export type CredentialSources = {
  /** Default: this process's environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** A directory of files named like the variables, lower-case; default: none. */
  readonly secretsDirectory?: string;
  /** Variables to look at before the CLI's own (a gateway's key name); default: none. */
  readonly preferred?: ReadonlyArray<readonly [string, Exclude<CredentialKind, "none">]>;
};

export async function findCredential(cli: AgentCli, sources: CredentialSources = {}): Promise<Credential> {
  const environment = sources.environment ?? process.env;
  const looked: string[] = [];
  for (const [variable, kind] of [...(sources.preferred ?? []), ...CREDENTIAL_VARIABLES[cli]]) {
    const fromEnvironment = environment[variable];
    looked.push(`$${variable}`);
    if (fromEnvironment !== undefined && fromEnvironment.trim() !== "") {
      return { kind, variable, source: "environment", value: fromEnvironment.trim() };
    }
    if (sources.secretsDirectory !== undefined) {
      const path = join(sources.secretsDirectory, variable.toLowerCase());
      looked.push(path);
      const fromFile = await readSecretFile(path);
      if (fromFile !== undefined) return { kind, variable, source: "secrets_directory", value: fromFile };
    }
  }
  return { kind: "none", looked };
}

/** A secrets file's trimmed content; undefined when it does not exist. Never follows a link. */
async function readSecretFile(path: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new CredentialError(`secrets file ${JSON.stringify(path)} cannot be opened (${code}); make it a regular file readable by this process`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new CredentialError(`secrets file ${JSON.stringify(path)} is not a regular file; write the credential into a plain file`);
    if ((stats.mode & 0o077) !== 0) {
      throw new CredentialError(`secrets file ${JSON.stringify(path)} is mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")}, readable by others; chmod 600 it`);
    }
    if (stats.size > MAX_CREDENTIAL_BYTES) {
      throw new CredentialError(`secrets file ${JSON.stringify(path)} is ${stats.size} bytes, over ${MAX_CREDENTIAL_BYTES} (MAX_CREDENTIAL_BYTES); it should hold one credential`);
    }
    const value = (await handle.readFile("utf8")).trim();
    return value === "" ? undefined : value;
  } finally {
    await handle.close();
  }
}
