// One Run: what it was asked, its events live as they happen (picked up again after a dropped
// connection with Last-Event-ID), its Outcome, its Harvest and patch; Cancel (asked twice, and
// harmless on a Run that already ended) and, for a kept session, Resume.

import { useEffect, useState } from "preact/hooks";
import type { Api, Run } from "../api";
import { bytes, dollars, duration, elapsed, tokens, when } from "../format";
import { hrefOf } from "../route";
import { ArtifactsView } from "../run/ArtifactsView";
import { LabelList, StateBadge } from "../run/badges";
import { EventList, type RunEvent } from "../run/EventList";
import { OutcomeView } from "../run/OutcomeView";
import { RequestView } from "../run/RequestView";
import { follow } from "../sse";
import { shortened } from "../text";
import { useNow } from "../use-now";
import { cliAndModel } from "./RunsPage";

const ENDED = new Set(["completed", "failed", "cancelled"]);

export function RunPage({ api, id }: { api: Api; id: string }) {
  const [run, setRun] = useState<Run | undefined>(undefined);
  const [request, setRequest] = useState<Record<string, unknown> | undefined>(undefined);
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [connected, setConnected] = useState(true);
  const [error, setError] = useState<string | undefined>(undefined);
  const now = useNow(1_000);

  const reload = () =>
    api
      .getRun(id)
      .then(setRun)
      .catch((failure: Error) => setError(failure.message));

  useEffect(() => {
    void reload();
    api
      .request(id)
      .then(setRequest)
      .catch(() => setRequest({}));
    const stop = follow(`/v1/runs/${id}/events`, {
      key: api.key,
      isLast: (message) => message.event === "end",
      onConnection: setConnected,
      onMessage: (message) => {
        if (message.event === "snapshot") return;
        const event: RunEvent = { id: message.id, type: message.event ?? "message", data: parsed(message.data) };
        // A replay after a reconnection starts after the last id seen; an id seen twice is dropped anyway.
        setEvents((before) => (event.id !== undefined && before.some((seen) => seen.id === event.id) ? before : [...before, event]));
        if (message.event === "state" || message.event === "end") void reload();
      },
    });
    return stop;
  }, [api, id]);

  if (error !== undefined && run === undefined)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (run === undefined) return <p class="loading">Reading the Run…</p>;
  const ended = ENDED.has(run.state);
  const named = cliAndModel(run);
  const { cli } = named;
  // While it runs, the model its CLI chose (the request named none) is known from the CLI's first event.
  const init = events.find((event) => event.type === "agent" && (event.data as { type?: unknown }).type === "init");
  const model = named.model || String((init?.data as { model?: unknown } | undefined)?.model ?? "");
  const session = run.outcome?.session;
  return (
    <section class="run" data-run={run.id}>
      <div class="heading">
        <h1>
          Run <code>{run.id}</code>
        </h1>
        <StateBadge state={run.state} />
        {!ended && !connected && <span class="live">reconnecting…</span>}
        <span class="actions">
          {!ended && <CancelButton api={api} id={run.id} onCancelled={setRun} />}
          {session?.kept === true && session.id !== undefined && (
            <a class="button" href={hrefOf({ page: "new", resume: session.id, ...(cli === "" ? {} : { cli }) })}>
              Resume
            </a>
          )}
        </span>
      </div>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <dl class="facts">
        <dt>Tenant</dt>
        <dd>{shortened(run.tenant, 80)}</dd>
        <dt>CLI</dt>
        <dd>{cli}</dd>
        <dt>Model</dt>
        <dd>{shortened(model, 80)}</dd>
        <dt>Labels</dt>
        <dd>
          <LabelList labels={run.labels} />
        </dd>
        <dt>Made</dt>
        <dd>{when(run.createdAt)}</dd>
        <dt>Started</dt>
        <dd>{run.startedAt === undefined ? "not yet: waiting for a slot" : when(run.startedAt)}</dd>
        <dt>Duration</dt>
        <dd>{duration(run.durationMs ?? (run.startedAt === undefined ? undefined : elapsed(run.startedAt, run.endedAt, now)))}</dd>
        {run.queuePosition !== undefined && (
          <>
            <dt>Queue</dt>
            <dd>place {run.queuePosition}</dd>
          </>
        )}
        <dt>Inputs</dt>
        <dd data-field="inputs">
          {run.inputs === undefined
            ? "none: it started in an empty folder"
            : `${run.inputs.files === 1 ? "1 file" : `${run.inputs.files} files`}${run.inputs.directories === 0 ? "" : ` in ${run.inputs.directories === 1 ? "1 folder" : `${run.inputs.directories} folders`}`}, ${bytes(run.inputs.bytes)}`}
        </dd>
        <dt>Tokens</dt>
        <dd>{tokens(run.usage?.inputTokens, run.usage?.outputTokens)}</dd>
        <dt>Cost</dt>
        <dd>
          {dollars(run.usage?.costUsd)}
          {run.outcome?.standIn === true ? ", not real (the stand-in model's made-up usage)" : ""}
        </dd>
      </dl>
      <h2>Request</h2>
      <RequestView request={request} />
      <h2>Events</h2>
      <EventList events={events} />
      {run.outcome !== undefined && (
        <>
          <h2>Outcome</h2>
          <OutcomeView outcome={run.outcome} />
        </>
      )}
      <h2>Artifacts</h2>
      <ArtifactsView api={api} id={run.id} ended={ended} />
    </section>
  );
}

/** Cancel, confirmed in the page (no browser dialog); a second cancel of an ended Run changes nothing. */
function CancelButton({ api, id, onCancelled }: { api: Api; id: string; onCancelled: (run: Run) => void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  if (!asking)
    return (
      <>
        {failed !== undefined && (
          <span class="error" role="alert">
            The cancel failed: {failed}
          </span>
        )}
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Cancel Run
        </button>
      </>
    );
  return (
    <span class="confirm">
      Stop this Run and remove its container?{" "}
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setFailed(undefined);
          api
            .cancelRun(id)
            .then(onCancelled)
            .catch((error: Error) => setFailed(error.message))
            .finally(() => {
              setBusy(false);
              setAsking(false);
            });
        }}
      >
        {busy ? "Cancelling…" : "Yes, cancel it"}
      </button>{" "}
      <button type="button" class="quiet" onClick={() => setAsking(false)}>
        No
      </button>
    </span>
  );
}

function parsed(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
