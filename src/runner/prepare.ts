// Preparing a request before any container: parsed, its resume and its budget's caps possible
// under this runner, and exactly one credential found for its CLI.
// Invariant: whatever ends a Run here is a refused Outcome, never a throw, and quotes no secret.

import {
  CREDENTIAL_VARIABLES,
  CredentialError,
  findCredential,
  parseAgentRequest,
  unheldCaps,
  type AgentCli,
  type AgentRequest,
  type AgentRequestError,
  type AgentRequestInput,
  type Credential,
  type CredentialSources,
} from "../agents/index.js";
import type { FoundCredential } from "./hand-over.js";
import { refused, type AgentOutcome } from "./outcome.js";
import type { RunnerSettings } from "./settings.js";

/** A request ready to run, with its credential. */
export type Prepared = { readonly request: AgentRequest; readonly credential: FoundCredential };

/** The request and its credential, or the Outcome that ends the Run before it starts. */
export function prepare(settings: RunnerSettings, input: AgentRequestInput): Promise<Prepared | AgentOutcome> {
  return prepareAny(settings, input, false) as Promise<Prepared | AgentOutcome>;
}

/** `named`: no credential found is no refusal; the request comes back with none (commandFor names where one goes). */
export async function prepareAny(
  settings: RunnerSettings,
  input: AgentRequestInput,
  named: boolean,
): Promise<{ readonly request: AgentRequest; readonly credential: FoundCredential | undefined } | AgentOutcome> {
  const request = checkedRequest(settings, input);
  if ("runId" in request) return request;
  let credential: Credential;
  try {
    credential = await findCredential(request.cli, credentialSearch(settings, request.cli));
  } catch (error) {
    return refused("unavailable", error instanceof CredentialError ? error.message : String(error), "none", request.cli);
  }
  if (credential.kind !== "none") return { request, credential };
  return named ? { request, credential: undefined } : noCredential(settings, request.cli);
}

/** The parsed request, or its refusal: a resume this runner cannot keep, a cap its network cannot hold. */
function checkedRequest(settings: RunnerSettings, input: AgentRequestInput): AgentRequest | AgentOutcome {
  const { policy, keepSessions, options } = settings;
  const gateway = settings.gateway ?? settings.proxies;
  let request: AgentRequest;
  try {
    request = parseAgentRequest(input);
  } catch (error) {
    return refused("invalid_request", (error as AgentRequestError).message, "none");
  }
  if (request.resumeSession !== undefined && !keepSessions) {
    return refused(
      "invalid_request",
      `resumeSession ${JSON.stringify(request.resumeSession)} cannot be resumed: this runner keeps no sessions; create it with sessions: true (and staging) so each session outlives its container`,
      "none",
      request.cli,
    );
  }
  const unheld = unheldCaps(
    request.cli,
    request.budget,
    gateway !== undefined ? (policy as "model" | "allowlist") : options.networks !== undefined ? "declared" : (policy as "none" | "open"),
  );
  if (unheld !== undefined) return refused("invalid_request", unheld, "none", request.cli);
  return request;
}

/** Where the CLI's credential is looked for: its endpoint's key first, the environment, the secrets directory, a login of its own (codex's). */
function credentialSearch(settings: RunnerSettings, cli: AgentCli): CredentialSources {
  const { options } = settings;
  const endpoint = settings.endpoints[cli];
  const gatewayKey = endpoint?.keyVariable;
  return {
    ...(gatewayKey === undefined ? {} : { preferred: [[gatewayKey, "api_key"]] }),
    ...(options.environment === undefined ? {} : { environment: options.environment }),
    ...(options.secretsDirectory === undefined ? {} : { secretsDirectory: options.secretsDirectory }),
    // A login speaks to the CLI's own provider; a gateway or stand-in takes a key.
    ...(options.codexLoginDirectory === undefined || endpoint !== undefined ? {} : { loginDirectory: options.codexLoginDirectory }),
  };
}

function noCredential(settings: RunnerSettings, cli: AgentCli): AgentOutcome {
  const { secretsDirectory } = settings.options;
  const names = CREDENTIAL_VARIABLES[cli].map(([variable]) => variable);
  return refused(
    "unavailable",
    `no credential for ${cli}: set ${names.map((n) => `$${n}`).join(" or ")}` +
      (secretsDirectory === undefined
        ? ""
        : `, or write one of ${names.map((n) => JSON.stringify(`${secretsDirectory}/${n.toLowerCase()}`)).join(", ")} (mode 0600)`),
    "none",
    cli,
  );
}
