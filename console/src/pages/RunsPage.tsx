// The Runs: newest first, filtered by state, CLI, label (and tenant, for the admin), a page at a
// time. The events feed (GET /v1/events as SSE) says when a Run is made or changes state; the page
// then reads its rows again, so what it shows is always what GET /v1/runs answers.

import { useEffect, useState } from "preact/hooks";
import type { Api, Run, RunPage as Page } from "../api";
import { dollars, duration, elapsed, tokens, when } from "../format";
import { LabelList, StateBadge } from "../run/badges";
import { hrefOf, type RunFilters } from "../route";
import { follow } from "../sse";
import { shortened } from "../text";
import { useNow } from "../use-now";

const STATES = ["queued", "starting", "running", "completed", "failed", "cancelled"] as const;
const PAGE_SIZE = 25;
/** Feed entries often come in bursts (queued, started, finished); one read of the page answers a burst. */
const REFRESH_DEBOUNCE_MS = 250;

type Filters = { state: "" | (typeof STATES)[number]; cli: "" | "claude" | "codex"; label: string; tenant: string };

/** The address's filters as the API takes them: an unknown state or CLI is left out, not sent. */
function filtersOf(given: RunFilters): Filters {
  return {
    state: (STATES as readonly string[]).includes(given.state) ? (given.state as Filters["state"]) : "",
    cli: given.cli === "claude" || given.cli === "codex" ? given.cli : "",
    label: given.label,
    tenant: given.tenant,
  };
}

export function RunsPage({ api, admin, given }: { api: Api; admin: boolean; given: RunFilters }) {
  const filters = filtersOf(given);
  const filtersKey = JSON.stringify(filters);
  // What is typed in the text filters, applied on Enter or on leaving the box: the page redraws
  // every second (durations count up), which must not take back what is being typed.
  const [drafts, setDrafts] = useState({ label: filters.label, tenant: filters.tenant });
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<Page | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [live, setLive] = useState(false);
  const [changes, setChanges] = useState(0);
  const now = useNow(1_000);

  const cursor = cursors.at(-1);
  // filtersKey stands for filters in the dependencies: filters is a new object at each redraw.
  useEffect(() => {
    let current = true;
    const query = {
      limit: PAGE_SIZE,
      ...(filters.state === "" ? {} : { state: filters.state }),
      ...(filters.cli === "" ? {} : { cli: filters.cli }),
      ...(filters.label.trim() === "" ? {} : { label: filters.label.trim() }),
      ...(filters.tenant.trim() === "" ? {} : { tenant: filters.tenant.trim() }),
      ...(cursor === undefined ? {} : { cursor }),
    } satisfies Parameters<Api["listRuns"]>[0];
    api
      .listRuns(query)
      .then((answer) => {
        if (!current) return;
        setPage(answer);
        setError(undefined);
      })
      .catch((failure: Error) => current && setError(failure.message));
    return () => {
      current = false;
    };
  }, [api, filtersKey, cursor, changes]);

  // Live: from the feed's newest entry on, each change reads the page again.
  useEffect(() => {
    let stop = () => {};
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(() => setChanges((n) => n + 1), REFRESH_DEBOUNCE_MS);
    };
    api
      .newestEventId()
      .then((newestId) => {
        if (stopped) return;
        stop = follow("/v1/events", {
          key: api.key,
          after: String(newestId),
          onMessage: changed,
          onConnection: (connected) => {
            setLive(connected);
            // Back after a drop: what changed meanwhile was replayed, but read the page anyway.
            if (connected) changed();
          },
        });
      })
      .catch(() => setLive(false));
    return () => {
      stopped = true;
      clearTimeout(timer);
      stop();
    };
  }, [api]);

  // Back, Forward or a link changed the filters: the first page of the new ones, and their text in the boxes.
  useEffect(() => {
    setCursors([]);
    setDrafts({ label: filters.label, tenant: filters.tenant });
  }, [filtersKey]);

  const filter = (change: Partial<Filters>) => {
    location.hash = hrefOf({ page: "runs", filters: { ...filters, ...change } });
  };
  return (
    <section>
      <div class="heading">
        <h1>Runs</h1>
        <span class={live ? "live on" : "live"} title="new Runs and state changes appear by themselves while this is on">
          {live ? "live" : "not live"}
        </span>
      </div>
      <form class="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          State
          <select name="state" value={filters.state} onChange={(event) => filter({ state: event.currentTarget.value as Filters["state"] })}>
            <option value="">any</option>
            {STATES.map((state) => (
              <option value={state}>{state}</option>
            ))}
          </select>
        </label>
        <label>
          CLI
          <select name="cli" value={filters.cli} onChange={(event) => filter({ cli: event.currentTarget.value as Filters["cli"] })}>
            <option value="">any</option>
            <option value="claude">claude</option>
            <option value="codex">codex</option>
          </select>
        </label>
        <label>
          Label
          <input
            name="label"
            placeholder="key=value"
            value={drafts.label}
            onInput={(event) => setDrafts({ ...drafts, label: event.currentTarget.value })}
            onChange={(event) => filter({ label: event.currentTarget.value })}
          />
        </label>
        {admin && (
          <label>
            Tenant
            <input
              name="tenant"
              placeholder="any"
              value={drafts.tenant}
              onInput={(event) => setDrafts({ ...drafts, tenant: event.currentTarget.value })}
              onChange={(event) => filter({ tenant: event.currentTarget.value })}
            />
          </label>
        )}
      </form>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {page !== undefined && page.runs.length === 0 && error === undefined && (
        <p class="empty">{isFiltered(filters) ? "No Runs match these filters." : cursors.length > 0 ? "No Runs on this page." : "No Runs yet."}</p>
      )}
      {page !== undefined && page.runs.length > 0 && error === undefined && (
        <div class="scroll">
          <table class="runs">
            <thead>
              <tr>
                <th>Run</th>
                <th>State</th>
                <th>Tenant</th>
                <th>CLI</th>
                <th>Model</th>
                <th>Labels</th>
                <th>Started</th>
                <th>Duration</th>
                <th>Tokens</th>
                <th>Cost</th>
                <th>End reason</th>
              </tr>
            </thead>
            <tbody>
              {page.runs.map((run) => (
                <RunRow run={run} now={now} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={page?.nextCursor === undefined}
          onClick={() => page?.nextCursor !== undefined && setCursors([...cursors, page.nextCursor])}
        >
          Older
        </button>
      </div>
    </section>
  );
}

function isFiltered(filters: Filters): boolean {
  return Object.values(filters).some((value) => value.trim() !== "");
}

function RunRow({ run, now }: { run: Run; now: number }) {
  const { cli, model } = cliAndModel(run);
  const ms = run.durationMs ?? (run.startedAt === undefined ? undefined : elapsed(run.startedAt, run.endedAt, now));
  return (
    <tr data-run={run.id} data-state={run.state}>
      <td>
        <a href={hrefOf({ page: "run", id: run.id })}>
          <code>{run.id}</code>
        </a>
      </td>
      <td>
        <StateBadge state={run.state} />
        {run.queuePosition !== undefined && <span class="hint"> place {run.queuePosition}</span>}
      </td>
      <td>{shortened(run.tenant, 40)}</td>
      <td>{cli}</td>
      <td>{shortened(model, 40)}</td>
      <td>
        <LabelList labels={run.labels} />
      </td>
      <td>{when(run.startedAt ?? run.createdAt)}</td>
      <td>{duration(ms)}</td>
      <td>{tokens(run.usage?.inputTokens, run.usage?.outputTokens)}</td>
      <td>{dollars(run.usage?.costUsd)}</td>
      <td>{run.reason ?? ""}</td>
    </tr>
  );
}

/** The Run's CLI and model: as the request named them, else as its Outcome says (the CLI's default model). */
export function cliAndModel(run: Run): { cli: string; model: string } {
  return { cli: run.cli ?? run.outcome?.cli ?? "", model: run.model ?? run.outcome?.result?.model ?? "" };
}
