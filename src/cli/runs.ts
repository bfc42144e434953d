// `agentcage runs ls | show ID | logs ID`: the service's Run records, read through the file store
// opened read only over its runtime directory (`<runtime-dir>/service/runs/<id>/`); nothing is
// started or changed.
// With --remote the same come through the service's API instead (runs-remote.ts).

import { readFileRunStore, type RunRecord } from "../server/index.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import { checkedId, checkedLabels, checkedState, eventLine, runTable } from "./run-rows.js";
import type { ProgramIo } from "./io.js";

type Records = { readonly runtimeDir: string };

async function known(id: string, options: Records): Promise<RunRecord> {
  const record = (await readFileRunStore(options.runtimeDir).all()).find((r) => r.id === checkedId(id));
  if (record === undefined)
    throw new UsageError(
      `no Run ${JSON.stringify(id)} in ${JSON.stringify(options.runtimeDir)}; list them with agentcage runs ls (and --runtime-dir where the service keeps its records)`,
    );
  return record;
}

export async function listRuns(
  options: Records & { readonly state?: string; readonly label?: readonly string[]; readonly json?: boolean },
  io: ProgramIo,
): Promise<number> {
  const state = checkedState(options.state);
  const labels = checkedLabels(options.label);
  const store = readFileRunStore(options.runtimeDir);
  const records = (await store.all())
    .filter((r) => state === undefined || r.state === state)
    .filter((r) => labels.every(([key, value]) => r.labels[key] === value))
    .reverse();
  const rows = await Promise.all(
    records.map(async (record) => {
      const request = (await store.request(record.id).catch(() => ({}))) as { cli?: string; prompt?: string };
      const outcome = (await store.outcome(record.id)) as { reason?: string; durationMs?: number } | undefined;
      return { record, cli: request.cli ?? "?", prompt: request.prompt ?? "", reason: outcome?.reason, durationMs: outcome?.durationMs };
    }),
  );
  if (options.json === true) {
    io.stdout.write(
      `${JSON.stringify(
        rows.map((row) => ({ ...row.record, cli: row.cli, reason: row.reason, durationMs: row.durationMs })),
        null,
        2,
      )}\n`,
    );
    return EXIT.completed;
  }
  if (rows.length === 0) {
    io.stderr.write(`no Runs in ${options.runtimeDir}${state === undefined && labels.length === 0 ? "" : " that match"}\n`);
    return EXIT.completed;
  }
  io.stdout.write(runTable(rows.map((row) => ({ ...row.record, cli: row.cli, durationMs: row.durationMs, prompt: row.prompt }))));
  return EXIT.completed;
}

export async function showRun(id: string, options: Records, io: ProgramIo): Promise<number> {
  const record = await known(id, options);
  const store = readFileRunStore(options.runtimeDir);
  const [request, outcome] = await Promise.all([store.request(record.id).catch(() => undefined), store.outcome(record.id)]);
  io.stdout.write(`${JSON.stringify({ ...record, request, ...(outcome === undefined ? {} : { outcome }) }, null, 2)}\n`);
  return EXIT.completed;
}

export async function runLogs(id: string, options: Records & { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  const record = await known(id, options);
  for (const event of await readFileRunStore(options.runtimeDir).events(record.id)) io.stdout.write(eventLine(event, options.json === true));
  return EXIT.completed;
}
