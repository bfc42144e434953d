// What a Run's container is handed beside its Run Plan: the credential when no egress proxy holds
// it (a login as a read-only file, claude's API key under `none` as a tmpfs secret its key helper
// reads, any other key in one variable), and the Session Store it keeps.
// Invariant: the credential's value goes only where the runtime masks it; a text the caller's
// callback wrote is masked with credentialMasked before an Outcome carries it.

import { createMasker } from "../redact/index.js";
import { tmpfsSecretCommand, type RunOptions, type SessionStoreOptions } from "../runtime/index.js";
import { CLAUDE_CONFIG_DIR, CODEX_HOME, type AgentCli, type AgentRequest, type CodexProvider, type Credential } from "../agents/index.js";

/** A credential that was found. */
export type FoundCredential = Exclude<Credential, { kind: "none" }>;

/** The tmpfs secret claude's key helper prints. */
const CLAUDE_KEY_SECRET = "anthropic-api-key";
/** claude's `apiKeyHelper`: waits until the Run's launcher has written the key, then prints it. */
export const CLAUDE_KEY_HELPER = tmpfsSecretCommand(CLAUDE_KEY_SECRET);

/**
 * The key helper a Run's claude reads its key with, when the key goes as a tmpfs secret: claude's API
 * key under `none` (under the proxy's policies the agent holds only a token; under `open` and for an
 * OAuth token it stays in the environment). So a pool member can start claude before its claim with
 * the very argv and environment of the Run, the key reaching it only at the claim, and no key is in
 * the container's create body, warm or cold. Undefined: the credential goes as handOver says otherwise.
 */
export function keyHelperFor(cli: AgentCli, credential: FoundCredential | undefined, policy: string): string | undefined {
  const byHelper = policy === "none" && cli === "claude" && credential?.kind === "api_key" && credential.variable === "ANTHROPIC_API_KEY";
  return byHelper ? CLAUDE_KEY_HELPER : undefined;
}

/**
 * How the credential reaches the agent (a login as a read-only file, a key as a tmpfs secret for its
 * helper when `keyHelper` is given, else in one variable), and what of it the runtime masks in this
 * Run only: the file's content and every token inside it, the key.
 */
export function handOver(
  cli: AgentCli,
  credential: FoundCredential,
  provider: CodexProvider | undefined,
  keyHelper?: string,
): Pick<RunOptions, "env" | "secretFiles" | "secrets" | "tmpfsSecrets"> {
  if (credential.kind === "login") return { secretFiles: [credential.file], secrets: credential.tokens };
  if (keyHelper !== undefined) return { tmpfsSecrets: { [CLAUDE_KEY_SECRET]: credential.value } };
  return { env: { [agentVariable(cli, credential.variable, provider)]: credential.value } };
}

/** The variable the agent reads its key from: a codex provider names its own; otherwise where it was found. */
export function agentVariable(cli: AgentCli, found: string, provider: CodexProvider | undefined): string {
  return cli === "codex" && provider !== undefined ? (provider.envKey ?? "OPENAI_API_KEY") : found;
}

/** The credential's value (and a login's tokens) out of a text the caller's callback wrote, in every spelling the masker knows. */
export function credentialMasked(text: string, credential: FoundCredential): string {
  const values =
    credential.kind === "login"
      ? [...(typeof credential.file.content === "string" ? [credential.file.content] : []), ...credential.tokens]
      : [credential.value];
  return createMasker(values).mask(text);
}

/** Where each CLI keeps what resuming needs, found with the real CLIs: claude's projects/ (one log per session), codex's sessions/ (rollouts). */
export function sessionStoreOf(request: AgentRequest): SessionStoreOptions {
  const agentPath = request.cli === "claude" ? `${CLAUDE_CONFIG_DIR}/projects` : `${CODEX_HOME}/sessions`;
  return { namespace: request.cli, agentPath, ...(request.resumeSession === undefined ? {} : { resume: request.resumeSession }) };
}
