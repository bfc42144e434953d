// What a call to run() or commandFor() may ask, checked before anything is staged or started.
// A malformed call ends as `invalid_request` with a sentence naming the parameter; env values
// are never quoted, they are secrets.

import { lstat, opendir } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { ENV_NAME, MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS, unmaskableSecret } from "../../container/index.js";
import { MIN_MASKED_VALUE_LENGTH } from "../../redact/index.js";
import { MAX_STALL_SECONDS, MIN_STALL_SECONDS } from "../limits.js";
import { excludeProblem, overlapsAsWritten, pathsOverlap, recoverHarvest, RUN_ID_PATTERN, SESSION_NAME } from "../../staging/index.js";
import type { RunOptions } from "./run-options.js";
import { checkCallShape, describeValue, RUN_OPTION_NAMES } from "../misuse.js";
import { liveRuns } from "../live-runs.js";
import { RUN_NETWORK_KINDS } from "../network/index.js";
import { TMPFS_SECRET_NAME } from "../pool/index.js";

/** Whether a caller's runId is a Run id (16 hex digits, as newRunId makes). */
export function isRunId(value: unknown): value is string {
  return typeof value === "string" && RUN_ID_PATTERN.test(value);
}

/** The caller's runId when this Run may carry it (a Run id no live Run has), even on a refusal for another reason; else undefined. */
export function usableRunId(options: unknown): string | undefined {
  const runId: unknown = typeof options === "object" && options !== null ? (options as { runId?: unknown }).runId : undefined;
  return isRunId(runId) && !liveRuns.has(runId) ? runId : undefined;
}

/** Why the call cannot run, or undefined when it can. */
export function checkRunRequest(prompt: unknown, options: RunOptions, runtimeDir: string | undefined, extra: readonly unknown[] = []): string | undefined {
  const shape = checkCallShape("run", options, RUN_OPTION_NAMES, extra);
  if (shape !== undefined) return shape;
  options ??= {};
  const staged = runtimeDir !== undefined;
  const p = prompt as { text?: unknown; session?: unknown } | null;
  if (typeof p !== "object" || p === null || typeof p.text !== "string") {
    return "the prompt is not { text: string }; pass the prompt's text as a string";
  }
  if (p.session !== undefined && typeof p.session !== "string") {
    return "the prompt's session is not a string; pass the session id to resume, or leave it out";
  }
  const t = options.timeoutSeconds;
  if (t !== undefined && !(Number.isInteger(t) && t >= MIN_TIMEOUT_SECONDS && t <= MAX_TIMEOUT_SECONDS)) {
    return `timeoutSeconds ${JSON.stringify(t)} is out of range; write a whole number from ${MIN_TIMEOUT_SECONDS} to ${MAX_TIMEOUT_SECONDS}`;
  }
  const stall: unknown = options.stallSeconds;
  if (stall !== undefined && !(typeof stall === "number" && Number.isInteger(stall) && stall >= MIN_STALL_SECONDS && stall <= MAX_STALL_SECONDS)) {
    return `stallSeconds ${describeValue(stall)} is not a whole number of seconds from ${MIN_STALL_SECONDS} to ${MAX_STALL_SECONDS}; write how long the agent may print nothing and use no CPU, like 600, or leave it out`;
  }
  if (options.onStallWarning !== undefined && typeof options.onStallWarning !== "function") {
    return `onStallWarning ${describeValue(options.onStallWarning)} is not a function; pass ({ silentMs }) => ..., or leave it out`;
  }
  const runId: unknown = options.runId;
  if (runId !== undefined && !isRunId(runId)) {
    return `runId ${describeValue(runId)} is not a Run id; make one with newRunId(), or leave it out`;
  }
  if (typeof runId === "string" && liveRuns.has(runId)) {
    return `runId ${JSON.stringify(runId)} is the id of a Run that is still going; make a new one with newRunId()`;
  }
  if (options.envAtClaim !== undefined && typeof options.envAtClaim !== "function") {
    return `envAtClaim ${describeValue(options.envAtClaim)} is not a function; pass async (offered) => ({ NAME: value }), or leave it out`;
  }
  if (options.atPlacement !== undefined && typeof options.atPlacement !== "function") {
    return `atPlacement ${describeValue(options.atPlacement)} is not a function; pass async (engine) => ({ env, network }), or leave it out`;
  }
  const network = options.network as { kind?: unknown; attach?: { container?: unknown; alias?: unknown } } | undefined;
  if (network !== undefined) {
    if (typeof network !== "object" || network === null || !(RUN_NETWORK_KINDS as readonly unknown[]).includes(network.kind)) {
      return `network ${describeValue(network)} is not { kind: "internal" | "open", attach? }; pass the kind of the Run's own network, or leave it out`;
    }
    const attach = network.attach;
    if (
      attach !== undefined &&
      (typeof attach !== "object" ||
        attach === null ||
        typeof attach.container !== "string" ||
        attach.container === "" ||
        typeof attach.alias !== "string" ||
        !/^[a-z0-9][a-z0-9.-]*$/.test(attach.alias))
    ) {
      return `network.attach ${describeValue(attach)} is not { container, alias }; name a running container and the host name the agent reaches it by, like { container: "agentcage-egress", alias: "egress" }`;
    }
  }
  if (options.harvestTo !== undefined && typeof options.harvestTo !== "string") {
    return `harvestTo ${JSON.stringify(options.harvestTo)} is not a string; pass an absolute directory path`;
  }
  const inputs = options.inputs as { directory?: unknown; files?: unknown; exclude?: unknown } | undefined;
  if (
    inputs !== undefined &&
    (typeof inputs !== "object" ||
      inputs === null ||
      (inputs.directory !== undefined && typeof inputs.directory !== "string") ||
      (inputs.files !== undefined && (typeof inputs.files !== "object" || inputs.files === null)))
  ) {
    return "inputs is not { directory?: string, files?: { path: content }, exclude?: [glob] }; pass an absolute directory path and/or named files";
  }
  const excludeRefusal = inputs === undefined ? undefined : excludeProblem(inputs.exclude, inputs);
  if (excludeRefusal !== undefined) return excludeRefusal;
  if (
    options.secretFiles !== undefined &&
    (!Array.isArray(options.secretFiles) || !options.secretFiles.every((file) => typeof file === "object" && file !== null))
  ) {
    return "secretFiles is not a list of { agentPath, content }; pass one object a file";
  }
  const secretsProblem = checkRunSecrets(options) ?? checkTmpfsSecrets(options.tmpfsSecrets);
  if (secretsProblem !== undefined) return secretsProblem;
  if (
    !staged &&
    (options.inputs !== undefined || options.harvestTo !== undefined || (options.secretFiles ?? []).length > 0 || options.sessionStore !== undefined)
  ) {
    return "inputs, harvestTo, secretFiles and sessionStore need a staged workspace; declare staging: { runtimeDir } in the Agent Container";
  }
  const store = options.sessionStore;
  if (store !== undefined) {
    if (typeof store !== "object" || store === null) return `sessionStore ${JSON.stringify(store)} is not an object; pass { namespace, agentPath, resume? }`;
    if (typeof store.namespace !== "string" || !SESSION_NAME.test(store.namespace)) {
      return `sessionStore.namespace ${JSON.stringify(store.namespace)} is not a plain name; use letters, digits, ".", "_" and "-", like "claude"`;
    }
    if (
      typeof store.agentPath !== "string" ||
      !isAbsolute(store.agentPath) ||
      store.agentPath.split("/").some((part, i) => i > 0 && (part === "" || part === "." || part === ".."))
    ) {
      return `sessionStore.agentPath ${JSON.stringify(store.agentPath)} is not a normalized absolute path; write where the agent keeps its sessions, like "/tmp/sessions"`;
    }
    if (store.resume !== undefined && (typeof store.resume !== "string" || !SESSION_NAME.test(store.resume))) {
      return `sessionStore.resume ${JSON.stringify(store.resume)} is not a session id; pass the sessionId an earlier Outcome reported`;
    }
  }
  if (options.harvestTo !== undefined && !isAbsolute(options.harvestTo)) {
    return `harvestTo ${JSON.stringify(options.harvestTo)} is not absolute; pass an absolute directory path`;
  }
  if (options.harvestTo !== undefined && runtimeDir !== undefined && overlapsAsWritten(options.harvestTo, runtimeDir)) {
    return `harvestTo ${JSON.stringify(options.harvestTo)} overlaps the Staging Directory ${JSON.stringify(runtimeDir)}; harvest to a directory outside it`;
  }
  const inputsDirectory = options.inputs?.directory;
  if (options.harvestTo !== undefined && typeof inputsDirectory === "string" && overlapsAsWritten(options.harvestTo, inputsDirectory)) {
    // Whatever the mode: a Harvest there would replace, or write into, the caller's own inputs.
    return `harvestTo ${JSON.stringify(options.harvestTo)} overlaps the inputs directory ${JSON.stringify(inputsDirectory)}; harvest to a directory outside the inputs`;
  }
  if (options.replaceHarvestTo !== undefined && typeof options.replaceHarvestTo !== "boolean") {
    return `replaceHarvestTo ${JSON.stringify(options.replaceHarvestTo)} is not a boolean; pass true to replace a harvestTo that holds files, or leave it out`;
  }
  return undefined;
}

/** The Run's own env, secret files and extra secrets: well-formed, or the sentence saying what is not. */
export function checkRunSecrets(options: Pick<RunOptions, "env" | "secretFiles" | "secrets">): string | undefined {
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (!ENV_NAME.test(name)) return `env name ${JSON.stringify(name)} is not a POSIX name; use letters, digits and _`;
    // Never quote the value: it is a secret.
    if (typeof value !== "string" || value.includes("\0")) return `env value of ${name} is not a string without NUL bytes; pass a plain string`;
  }
  const unmaskable = unmaskableSecret(Object.entries(options.env ?? {}));
  if (unmaskable !== undefined) return unmaskable;
  for (const file of options.secretFiles ?? []) {
    const path = file.agentPath;
    if (typeof path !== "string" || !path.startsWith("/") || path.split("/").some((part, i) => i > 0 && (part === "" || part === "." || part === ".."))) {
      return `secret file path ${JSON.stringify(path)} is not a normalized absolute path; write where the agent expects the file, like "/tmp/auth.json"`;
    }
    if (typeof file.content !== "string" && !(file.content instanceof Uint8Array))
      return `secret file ${JSON.stringify(path)} has no content; pass a string or bytes`;
  }
  if (options.secrets !== undefined && (!Array.isArray(options.secrets) || !options.secrets.every((s) => typeof s === "string"))) {
    return "secrets is not a list of strings; pass the values to mask as string[]";
  }
  const shortSecret = (options.secrets ?? []).findIndex((value) => value.length > 0 && value.length < MIN_MASKED_VALUE_LENGTH);
  if (shortSecret !== -1)
    return `secrets[${shortSecret}] is too short to be masked (MIN_MASKED_VALUE_LENGTH is ${MIN_MASKED_VALUE_LENGTH}); pass only values that are credentials`;
  return undefined;
}

/** The Run's tmpfs secrets: plain file names, non-empty values the masker can mask; never a value quoted. */
function checkTmpfsSecrets(secrets: RunOptions["tmpfsSecrets"]): string | undefined {
  if (secrets === undefined) return undefined;
  if (typeof secrets !== "object" || secrets === null || Array.isArray(secrets)) {
    return `tmpfsSecrets ${describeValue(secrets)} is not an object of name to value; pass e.g. { "api-key": value }`;
  }
  for (const [name, value] of Object.entries(secrets)) {
    if (!TMPFS_SECRET_NAME.test(name))
      return `tmpfsSecrets name ${JSON.stringify(name)} is not a file name; use lower-case letters, digits and -, like "api-key"`;
    if (typeof value !== "string" || value.includes("\0") || value.length < MIN_MASKED_VALUE_LENGTH) {
      return `tmpfsSecrets value of ${name} is not a string of at least ${MIN_MASKED_VALUE_LENGTH} characters without NUL bytes (MIN_MASKED_VALUE_LENGTH: it must be masked); pass the credential itself`;
    }
  }
  return undefined;
}

/**
 * Why `harvestTo` cannot take this Run's Harvest, decided before the Run starts; undefined when it
 * can. The overlaps checkRunRequest found as written are looked for again with links resolved.
 */
export async function checkHarvestDestination(
  harvestTo: string,
  replace: boolean,
  around: { readonly inputsDirectory?: string; readonly runtimeDir: string },
): Promise<string | undefined> {
  for (const [name, other, instead] of [
    ["the inputs directory", around.inputsDirectory, "harvest to a directory outside the inputs"],
    ["the Staging Directory", around.runtimeDir, "harvest to a directory outside it"],
  ] as const) {
    if (other === undefined) continue;
    const overlap = await pathsOverlap(harvestTo, other).catch((error: NodeJS.ErrnoException) => error.code ?? "unresolvable");
    if (overlap === true) return `harvestTo ${JSON.stringify(harvestTo)} overlaps ${name} ${JSON.stringify(other)} once links are resolved; ${instead}`;
    if (typeof overlap === "string")
      return `harvestTo ${JSON.stringify(harvestTo)} or ${name} ${JSON.stringify(other)} cannot be resolved (${overlap}); pass paths this process can read`;
  }
  // A Harvest a crashed process left half-installed is put back first, so the check sees what the caller had.
  const recovered = await recoverHarvest(harvestTo);
  if (!recovered.ok)
    return `harvestTo ${JSON.stringify(harvestTo)} holds what an interrupted Harvest left and it could not be put back (${recovered.message}); restore or remove it`;
  let stats;
  try {
    stats = await lstat(harvestTo);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return `harvestTo ${JSON.stringify(harvestTo)} cannot be read (${(error as NodeJS.ErrnoException).code}); pass a directory this process can write`;
  }
  if (stats.isSymbolicLink() || !stats.isDirectory()) {
    return `harvestTo ${JSON.stringify(harvestTo)} exists and is not a directory (links are not followed); pass a directory, or a path that does not exist yet`;
  }
  if (replace) return undefined;
  const handle = await opendir(harvestTo);
  const first = await handle.read();
  await handle.close();
  return first === null
    ? undefined
    : `harvestTo ${JSON.stringify(harvestTo)} already holds files and the Harvest never deletes what it was not given; pass an empty or new directory, or replaceHarvestTo: true to replace it whole`;
}
