// `agentcage runs ls | show ID | logs ID`: the service's Run records, read from its runtime
// directory (`<runtime-dir>/service/runs/<id>/`) as they are on disk; nothing is started or changed.

import { createRunStore, RUN_STATES, type RunRecord } from "../server/index.js";
import { RUN_ID_PATTERN } from "../staging/index.js";
import { EXIT } from "./exit-codes.js";
import { UsageError } from "./options.js";
import { formatSeconds, oneLine, shorten } from "./progress.js";
import type { ProgramIo } from "./io.js";

type Records = { readonly runtimeDir: string };

function checkedId(id: string): string {
  if (!RUN_ID_PATTERN.test(id)) throw new UsageError(`the Run id ${JSON.stringify(id)} is not one; a Run id is 16 hex digits, as agentcage runs ls lists them`);
  return id;
}

async function known(id: string, options: Records): Promise<RunRecord> {
  const record = (await createRunStore(options.runtimeDir).all()).find((r) => r.id === checkedId(id));
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
  if (options.state !== undefined && !(RUN_STATES as readonly string[]).includes(options.state)) {
    throw new UsageError(`--state ${JSON.stringify(options.state)} is not a Run state; write one of ${RUN_STATES.join(", ")}`);
  }
  const labels = (options.label ?? []).map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) throw new UsageError(`--label ${JSON.stringify(pair)} is not key=value; write e.g. --label team=review`);
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
  const store = createRunStore(options.runtimeDir);
  const records = (await store.all())
    .filter((r) => options.state === undefined || r.state === options.state)
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
    io.stderr.write(`no Runs in ${options.runtimeDir}${options.state === undefined && labels.length === 0 ? "" : " that match"}\n`);
    return EXIT.completed;
  }
  io.stdout.write(`${["ID".padEnd(16), "STATE".padEnd(9), "CLI".padEnd(6), "CREATED".padEnd(20), "TOOK".padEnd(8), "PROMPT"].join("  ")}\n`);
  for (const row of rows) {
    const took = row.durationMs === undefined ? "" : formatSeconds(row.durationMs);
    io.stdout.write(
      `${[row.record.id, row.record.state.padEnd(9), row.cli.padEnd(6), row.record.createdAt.slice(0, 19).replace("T", " ").padEnd(20), took.padEnd(8), shorten(oneLine(row.prompt), 60)].join("  ")}\n`,
    );
  }
  return EXIT.completed;
}

export async function showRun(id: string, options: Records, io: ProgramIo): Promise<number> {
  const record = await known(id, options);
  const store = createRunStore(options.runtimeDir);
  const [request, outcome] = await Promise.all([store.request(record.id).catch(() => undefined), store.outcome(record.id)]);
  io.stdout.write(`${JSON.stringify({ ...record, request, ...(outcome === undefined ? {} : { outcome }) }, null, 2)}\n`);
  return EXIT.completed;
}

export async function runLogs(id: string, options: Records & { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  const record = await known(id, options);
  for (const event of await createRunStore(options.runtimeDir).events(record.id)) {
    if (options.json === true) {
      io.stdout.write(`${JSON.stringify(event)}\n`);
      continue;
    }
    io.stdout.write(`${String(event.id).padStart(4)} ${event.type.padEnd(6)} ${shorten(oneLine(JSON.stringify(event.data)), 200)}\n`);
  }
  return EXIT.completed;
}
