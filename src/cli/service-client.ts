// How the command speaks to an `agentcage serve` it administers (keys, tenants, audit, runs): the
// service's URL, the token it shows (AGENTCAGE_TOKEN, AGENTCAGE_TOKEN_FILE, or on loopback the one a
// serve here wrote), one typed request through agentcage/client, and what each refusal means as an
// exit status. The token never appears in what is printed, and a token file on this machine is
// never sent to another one.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentcageClient, type ApiAnswer, causeOf, createClient, type RunEvent, ServiceError } from "../client/index.js";
import { EXIT } from "./exit-codes.js";
import type { CommandIo } from "./io.js";
import { UsageError } from "./options.js";
import { printable } from "./progress.js";

/** The service's address when neither --remote nor AGENTCAGE_URL names one: `agentcage serve`'s default. */
export const DEFAULT_SERVICE_URL = "http://127.0.0.1:8750";
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

export type Service = { readonly base: URL; readonly token: string; readonly client: AgentcageClient };

/** What the service refused or could not answer, said in the command's words, and the exit status it means. */
class ServiceRefusal extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** --remote as a URL, refused in flag words when it is not an http(s) one. */
export function serviceUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--remote ${JSON.stringify(raw)} is not a URL; write the service's address, e.g. ${DEFAULT_SERVICE_URL}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`--remote ${JSON.stringify(raw)} is not http or https; write e.g. ${DEFAULT_SERVICE_URL}`);
  return url;
}

/** The service at --remote, with the token to show it. */
export async function connectService(
  flags: { readonly remote: string; readonly runtimeDir: string },
  env: Readonly<Record<string, string | undefined>>,
): Promise<Service> {
  const base = serviceUrl(flags.remote);
  const token = await tokenFor(base, flags.runtimeDir, env);
  return { base, token, client: createClient({ baseUrl: base, token }) };
}

/**
 * AGENTCAGE_TOKEN, else the file AGENTCAGE_TOKEN_FILE names, else (for a service on loopback only:
 * that file holds this machine's Operator token) `<runtime-dir>/service/token`, where serve writes
 * the one it makes.
 */
async function tokenFor(base: URL, runtimeDir: string, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const direct = env["AGENTCAGE_TOKEN"];
  if (direct !== undefined && direct !== "") return direct;
  const named = env["AGENTCAGE_TOKEN_FILE"];
  if (named !== undefined && named !== "") {
    const text = await readToken(named, "AGENTCAGE_TOKEN_FILE");
    if (text === undefined) throw new UsageError(`AGENTCAGE_TOKEN_FILE ${JSON.stringify(named)} does not exist; point it at a file holding the token`);
    return text;
  }
  const local = LOOPBACK.has(base.hostname);
  const written = join(runtimeDir, "service", "token");
  const text = local ? await readToken(written, "--runtime-dir's service/token") : undefined;
  if (text !== undefined) return text;
  throw new UsageError(
    `no token for ${base.origin}: set AGENTCAGE_TOKEN (or AGENTCAGE_TOKEN_FILE) to the Operator's token or an admin key` +
      (local ? `; a serve on this machine that made its own wrote it to <runtime-dir>/service/token, and ${written} is not there (give --runtime-dir)` : ""),
  );
}

/** The token a file holds; undefined when there is no such file. */
async function readToken(path: string, named: string): Promise<string | undefined> {
  let text: string;
  try {
    text = (await readFile(path, "utf8")).trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new UsageError(`${named} ${JSON.stringify(path)} cannot be read (${code}); point it at a file holding the token that this user can read`);
  }
  if (text === "") throw new UsageError(`${named} ${JSON.stringify(path)} is empty; write the token into it`);
  return text;
}

/**
 * One typed request (`asked` names it: "POST /v1/keys"); a refusal or no answer at all is thrown as
 * a ServiceRefusal, which `answered` turns into its exit status.
 */
export async function askService<T>(
  service: Service,
  asked: string,
  perform: (api: AgentcageClient["api"], signal: AbortSignal) => Promise<ApiAnswer<T>>,
): Promise<T> {
  try {
    return await service.client.ask(asked, perform);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    throw refusalOf(error, service.base, asked);
  }
}

/** A Run's numbered events through the service, to its end; a refusal or a lost service is thrown as askService's are. */
export async function* followService(service: Service, id: string): AsyncGenerator<Exclude<RunEvent, { type: "snapshot" }>, void, undefined> {
  try {
    for await (const event of service.client.follow(id)) if (event.type !== "snapshot") yield event;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    throw refusalOf(error, service.base, `GET /v1/runs/${id}/events`);
  }
}

function refusalOf(error: ServiceError, base: URL, asked: string): ServiceRefusal {
  const status = error.status;
  if (status === undefined)
    return new ServiceRefusal(
      `the service at ${base.origin} cannot be reached (${causeOf(error.cause)}); check --remote (or AGENTCAGE_URL) and that agentcage serve runs there`,
      EXIT.unavailable,
    );
  // An answer with no error body of the API's (a proxy's page) has a status and nothing else to say.
  const code = error.code === "service_unreachable" ? "" : ` ${error.code}`;
  // The service's own sentence; what it quotes came from this command, but an answer is not trusted with the terminal.
  const said = printable(`HTTP ${status}${code}: ${error.serviceMessage ?? "no message"}`);
  if (status === 401)
    return new ServiceRefusal(`the service refused the token (${said}); set AGENTCAGE_TOKEN to the Operator's token or an admin key`, EXIT.usage);
  if (status === 403) return new ServiceRefusal(`the service refused ${asked} to this key (${said})`, EXIT.usage);
  if (status === 429 || status === 503)
    return new ServiceRefusal(`the service takes no such request now (${said}); try again in ${error.retryAfterSeconds ?? "a few"} s`, EXIT.unavailable);
  if (status >= 500) return new ServiceRefusal(`the service failed ${asked} (${said}); its log says why`, EXIT.failed);
  return new ServiceRefusal(`the service refused ${asked} (${said})`, EXIT.usage);
}

/** Runs a command against the service: a refusal is said on stderr and becomes the exit status (2 refused, 3 unreachable or busy, 1 failed). */
export async function answered(io: Pick<CommandIo, "stderr">, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ServiceRefusal)) throw error;
    io.stderr.write(`agentcage: ${error.message}\n`);
    return error.exitCode;
  }
}
