// What a Run's container is handed beside its Run Plan: the credential when no egress proxy holds
// it (a login as a read-only file, an API key under `none` as a tmpfs secret the CLI's key helper
// reads when its adapter has one, as claude's, any other key in one variable), and the Session Store it keeps.
// Invariant: the credential's value goes only where the runtime masks it; a text the caller's
// callback wrote is masked with credentialMasked before an Outcome carries it.

import { createMasker } from "../redact/index.js";
import { tmpfsSecretCommand, type RunOptions, type SessionStoreOptions } from "../runtime/index.js";
import { adapterFor, type AgentCli, type AgentEndpoint, type AgentRequest, type Credential } from "../agents/index.js";

/** A credential that was found. */
export type FoundCredential = Exclude<Credential, { kind: "none" }>;

/** The tmpfs secret a key helper prints, named after the key's variable: ANTHROPIC_API_KEY's is "anthropic-api-key". */
function keySecretOf(variable: string): string {
  return variable.toLowerCase().replaceAll("_", "-");
}

/** A CLI's key helper (claude's `apiKeyHelper`) for the key of `variable`: waits until the Run's launcher has written it, then prints it. */
export function keyHelperCommand(variable: string): string {
  return tmpfsSecretCommand(keySecretOf(variable));
}

/**
 * The key helper a Run's CLI reads its key with, when the key goes as a tmpfs secret: the API key its
 * adapter reads through a helper (claude's) under `none` (under the proxy's policies the agent holds only a token; under `open` and for an
 * OAuth token it stays in the environment). So a pool member can start claude before its claim with
 * the very argv and environment of the Run, the key reaching it only at the claim, and no key is in
 * the container's create body, warm or cold. Undefined: the credential goes as handOver says otherwise.
 */
export function keyHelperFor(cli: AgentCli, credential: FoundCredential | undefined, policy: string): string | undefined {
  const variable = adapterFor(cli).keyHelperVariable;
  const byHelper = policy === "none" && variable !== undefined && credential?.kind === "api_key" && credential.variable === variable;
  return byHelper ? keyHelperCommand(variable) : undefined;
}

/**
 * How the credential reaches the agent (a login as a read-only file, a key as a tmpfs secret for its
 * helper when `keyHelper` is given, else in one variable), and what of it the runtime masks in this
 * Run only: the file's content and every token inside it, the key.
 */
export function handOver(
  cli: AgentCli,
  credential: FoundCredential,
  endpoint: AgentEndpoint | undefined,
  keyHelper?: string,
): Pick<RunOptions, "env" | "secretFiles" | "secrets" | "tmpfsSecrets"> {
  if (credential.kind === "login") return { secretFiles: [credential.file], secrets: credential.tokens };
  if (keyHelper !== undefined) return { tmpfsSecrets: { [keySecretOf(credential.variable)]: credential.value } };
  return { env: { [agentVariable(cli, credential.variable, endpoint)]: credential.value } };
}

/** The variable the agent reads its key from: where its endpoint says (a codex provider names its own), or where it was found. */
export function agentVariable(cli: AgentCli, found: string, endpoint: AgentEndpoint | undefined): string {
  return adapterFor(cli).keyVariableOf(found, endpoint);
}

/** The credential's value (and a login's tokens) out of a text the caller's callback wrote, in every spelling the masker knows. */
export function credentialMasked(text: string, credential: FoundCredential): string {
  const values =
    credential.kind === "login"
      ? [...(typeof credential.file.content === "string" ? [credential.file.content] : []), ...credential.tokens]
      : [credential.value];
  return createMasker(values).mask(text);
}

/** Where the CLI keeps what resuming needs (its adapter's sessionPath: claude's projects/, codex's sessions/), in a namespace of its own. */
export function sessionStoreOf(request: AgentRequest): SessionStoreOptions {
  const agentPath = adapterFor(request.cli).sessionPath;
  return { namespace: request.cli, agentPath, ...(request.resumeSession === undefined ? {} : { resume: request.resumeSession }) };
}
