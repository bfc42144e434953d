// Finds the one credential a Run of a CLI gets: from the orchestrator's environment, else from a
// secrets directory (`<dir>/<lowercase name>`, mode 0600). A subscription credential wins over an
// API key. The kind is reportable; the value goes only to the container's environment and the masker.

import { open } from "node:fs/promises";
import { join } from "node:path";
import { constants } from "node:fs";
import { AgentcageError } from "../errors/index.js";
import type { CredentialVariable } from "./adapter/index.js";
import { adapterFor, perCli, type AgentCli } from "./adapters.js";
import { MAX_CREDENTIAL_BYTES } from "./limits.js";

/** Which kind of credential a Run got: a subscription token, a CLI's own login, an API key, or none. Reportable; the value never is. */
export type CredentialKind = "oauth_token" | "login" | "api_key" | "none";

export type Credential =
  | { readonly kind: "none"; readonly looked: readonly string[] }
  | {
      /** A CLI's own login (codex's auth.json): a file for the agent, not a variable. */
      readonly kind: "login";
      readonly source: "login_directory";
      /** Where the agent's CLI expects it, and its content (secret). */
      readonly file: { readonly agentPath: string; readonly content: string };
      /** Token values inside it, to mask. */
      readonly tokens: readonly string[];
    }
  | {
      readonly kind: "oauth_token" | "api_key";
      /** The variable the agent reads it from. */
      readonly variable: string;
      readonly source: "environment" | "secrets_directory";
      /** Secret: for the container's environment and the masker only. */
      readonly value: string;
    };

/** Per CLI, in order of preference (its adapter's): subscription first, then API keys. */
export const CREDENTIAL_VARIABLES: Readonly<Record<AgentCli, readonly CredentialVariable[]>> = perCli((adapter) => adapter.credentials);

/** A credential that is there but cannot be read (a secrets file readable by others, not a plain file or too large; a login that is not JSON); the message names the file, never its value. */
export class CredentialError extends AgentcageError {
  override readonly name = "CredentialError";
  readonly code = "credential_unreadable";
}

export type CredentialSources = {
  /** Default: this process's environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** A directory of files named like the variables, lower-case; default: none. */
  readonly secretsDirectory?: string;
  /** Variables to look at before the CLI's own (a gateway's key name); default: none. */
  readonly preferred?: readonly CredentialVariable[];
  /**
   * For a CLI with a login of its own (codex: a ChatGPT login, `auth.json`): the directory holding
   * it, which wins over any API key. The file is copied into each Run and mounted read-only; the
   * directory itself is never mounted. Default: none.
   */
  readonly loginDirectory?: string;
};

export async function findCredential(cli: AgentCli, sources: CredentialSources = {}): Promise<Credential> {
  const environment = sources.environment ?? process.env;
  const looked: string[] = [];
  const { login, credentials } = adapterFor(cli);
  if (login !== undefined && sources.loginDirectory !== undefined) {
    const path = join(sources.loginDirectory, login.fileName);
    looked.push(path);
    const content = await readSecretFile(path, false);
    if (content !== undefined)
      return { kind: "login", source: "login_directory", file: { agentPath: login.agentPath, content }, tokens: tokenValues(content, path) };
  }
  for (const [variable, kind] of [...(sources.preferred ?? []), ...credentials]) {
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

/** Every string under a key naming a token or key in a login file, to mask wherever it appears. */
function tokenValues(content: string, path: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new CredentialError(`login file ${JSON.stringify(path)} is not JSON; sign in again to write it`);
  }
  const found: string[] = [];
  const visit = (value: unknown, key: string): void => {
    if (typeof value === "string") {
      if (/token|key|secret/i.test(key)) found.push(value);
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  visit(parsed, "");
  return found;
}

/** A secrets file's content (trimmed unless `trim` is false); undefined when it does not exist. Never follows a link. */
async function readSecretFile(path: string, trim = true): Promise<string | undefined> {
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
      throw new CredentialError(
        `secrets file ${JSON.stringify(path)} is mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")}, readable by others; chmod 600 it`,
      );
    }
    if (stats.size > MAX_CREDENTIAL_BYTES) {
      throw new CredentialError(
        `secrets file ${JSON.stringify(path)} is ${stats.size} bytes, over ${MAX_CREDENTIAL_BYTES} (MAX_CREDENTIAL_BYTES); it should hold one credential`,
      );
    }
    const raw = await handle.readFile("utf8");
    const value = trim ? raw.trim() : raw;
    return value.trim() === "" ? undefined : value;
  } finally {
    await handle.close();
  }
}
