// `agentcage runs ls | show ID | logs ID --remote URL`: the same records as runs.ts reads from disk,
// through the service's API (GET /v1/runs, /v1/runs/:id, its request and its events), shown the
// token as keys, tenants and audit show it. Only the tenant's own Runs answer, unless the key is admin.

import type { Run } from "../client/index.js";
import { EXIT } from "./exit-codes.js";
import type { ProgramIo } from "./io.js";
import type { ServiceFlags } from "./keys.js";
import { checkedId, checkedLabels, checkedState, eventLine, runTable } from "./run-rows.js";
import { answered, askService, connectService, followService, type Service } from "./service-client.js";

/** The most Runs one page of GET /v1/runs answers (the service's MAX_PAGE_SIZE). */
const PAGE_SIZE = 200;
/** Requests for the listed Runs' prompts at once. */
const PROMPTS_AT_ONCE = 8;

export async function listRemoteRuns(
  flags: ServiceFlags & { readonly state?: string; readonly label?: readonly string[]; readonly json?: boolean },
  io: ProgramIo,
): Promise<number> {
  const state = checkedState(flags.state);
  const labels = checkedLabels(flags.label).map(([key, value]) => `${key}=${value}`);
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const runs: Run[] = [];
    let cursor: string | undefined;
    do {
      const query = {
        limit: PAGE_SIZE,
        ...(state === undefined ? {} : { state }),
        ...(labels.length === 0 ? {} : { label: labels }),
        ...(cursor === undefined ? {} : { cursor }),
      };
      const page = await askService(service, "GET /v1/runs", (api, signal) => api.GET("/v1/runs", { params: { query }, signal }));
      runs.push(...page.runs);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      return EXIT.completed;
    }
    if (runs.length === 0) {
      io.stderr.write(`no Runs at ${service.base.origin}${state === undefined && labels.length === 0 ? "" : " that match"}\n`);
      return EXIT.completed;
    }
    const prompts = await promptsOf(service, runs);
    io.stdout.write(runTable(runs.map((run, i) => ({ ...run, cli: run.cli ?? "?", durationMs: run.durationMs, prompt: prompts[i] ?? "" }))));
    return EXIT.completed;
  });
}

/** Each Run's prompt, a few requests at a time, in the Runs' order. */
async function promptsOf(service: Service, runs: readonly Run[]): Promise<string[]> {
  const prompts: string[] = [];
  for (let at = 0; at < runs.length; at += PROMPTS_AT_ONCE) {
    const some = runs.slice(at, at + PROMPTS_AT_ONCE).map(async ({ id }) => {
      const asked = await askService(service, `GET /v1/runs/${id}/request`, (api, signal) =>
        api.GET("/v1/runs/{id}/request", { params: { path: { id } }, signal }),
      );
      return typeof asked.prompt === "string" ? asked.prompt : "";
    });
    prompts.push(...(await Promise.all(some)));
  }
  return prompts;
}

export async function showRemoteRun(id: string, flags: ServiceFlags, io: ProgramIo): Promise<number> {
  checkedId(id);
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    const path = { params: { path: { id } } };
    const [run, request] = await Promise.all([
      askService(service, `GET /v1/runs/${id}`, (api, signal) => api.GET("/v1/runs/{id}", { ...path, signal })),
      askService(service, `GET /v1/runs/${id}/request`, (api, signal) => api.GET("/v1/runs/{id}/request", { ...path, signal })),
    ]);
    io.stdout.write(`${JSON.stringify({ ...run, request }, null, 2)}\n`);
    return EXIT.completed;
  });
}

/** The Run's events; one that has not ended is followed to its end. */
export async function remoteRunLogs(id: string, flags: ServiceFlags & { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  checkedId(id);
  const service = await connectService(flags, io.env);
  return answered(io, async () => {
    for await (const event of followService(service, id)) io.stdout.write(eventLine(event, flags.json === true));
    return EXIT.completed;
  });
}
