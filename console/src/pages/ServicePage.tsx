// The service itself: its slots and queue, whether it can run an agent now (engine, image,
// credentials by kind, never a value), the egress proxy's state, and usage today per tenant
// (the caller's own tenant only, unless the key is the admin's). Read again every few seconds.

import { useEffect, useState } from "preact/hooks";
import type { Api, ServiceState } from "../api";
import { dollars, when } from "../format";
import { shortened } from "../text";

const REFRESH_MS = 3_000;

export function ServicePage({ api, admin }: { api: Api; admin: boolean }) {
  const [state, setState] = useState<ServiceState | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let current = true;
    const read = () =>
      api
        .service()
        .then((answer) => {
          if (!current) return;
          setState(answer);
          setError(undefined);
        })
        .catch((failure: Error) => current && setError(failure.message));
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [api]);

  return (
    <section class="service">
      <h1>Service</h1>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {state === undefined ? <p class="loading">Reading the service…</p> : <ServiceView state={state} admin={admin} />}
    </section>
  );
}

function ServiceView({ state, admin }: { state: ServiceState; admin: boolean }) {
  const { slots, checks, egress } = state;
  return (
    <>
      <div class="cards">
        <div class="card" data-card="slots">
          <div class="figure">
            {slots.running} / {slots.total}
          </div>
          slots in use{admin ? "" : " by your tenant"}
        </div>
        <div class="card" data-card="queue">
          <div class="figure">{slots.queued}</div>
          {admin ? "Runs waiting for a slot" : "of your Runs waiting for a slot"}
        </div>
        <div class="card" data-card="ready">
          <div class={`figure ${state.ready ? "check-ok" : "check-bad"}`}>{state.ready ? "ready" : "not ready"}</div>
          agentcage {state.version}, up since {when(state.startedAt)}
        </div>
      </div>
      <h2>Readiness</h2>
      <dl class="checks">
        <dt>Engine</dt>
        <dd class={checks.engine ? "check-ok" : "check-bad"}>{checks.engine ? "answers" : "does not answer"}</dd>
        <dt>Agent image</dt>
        <dd class={checks.image ? "check-ok" : "check-bad"}>
          {checks.image ? "present" : "missing"}
          {checks.agentImage === undefined ? "" : ` (${shortened(checks.agentImage, 120)})`}
        </dd>
        <dt>Model</dt>
        <dd data-field="model">{state.standIn ? "the stand-in model, offline (serve --stand-in)" : "the providers' APIs"}</dd>
        {Object.entries(checks.credentials).map(([cli, kind]) => (
          <>
            <dt>{cli} credential</dt>
            <dd class={kind === "none" ? "check-bad" : "check-ok"}>{state.standIn ? `${kind} (the stand-in's)` : kind}</dd>
          </>
        ))}
      </dl>
      <h2>Egress proxy</h2>
      <dl class="egress">
        <dt>Network policy</dt>
        <dd>{egress.networkPolicy}</dd>
        <dt>Proxy</dt>
        <dd>
          {egress.proxy === "none" ? "none (the policy needs none)" : egress.proxy === "started" ? "started by this service" : "the deployment's own"}
          {egress.answering === undefined
            ? ""
            : !egress.answering
              ? ", GONE (its container is not running, or its socket refuses)"
              : egress.slow === true
                ? ", slow to answer (it runs)"
                : ", answering"}
        </dd>
        {egress.container !== undefined && (
          <>
            <dt>Container</dt>
            <dd>{shortened(egress.container, 120)}</dd>
          </>
        )}
        {egress.alias !== undefined && (
          <>
            <dt>Agents reach it at</dt>
            <dd>
              {shortened(egress.alias, 120)}:{egress.port}
            </dd>
          </>
        )}
      </dl>
      <h2>Today (since {when(state.since)})</h2>
      <table class="usage">
        <thead>
          <tr>
            <th>Tenant</th>
            <th>Running</th>
            <th>Queued</th>
            <th>Runs ended</th>
            <th>How they ended</th>
            <th>Tokens in</th>
            <th>Tokens out</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {state.tenants.map((tenant) => (
            <tr data-tenant={tenant.tenant}>
              <td>{shortened(tenant.tenant, 60)}</td>
              <td>{tenant.running}</td>
              <td>{tenant.queued}</td>
              <td>{tenant.today.runs}</td>
              <td>
                {Object.entries(tenant.today.reasons)
                  .map(([reason, count]) => `${reason} ${count}`)
                  .join(", ")}
              </td>
              <td>{tenant.today.inputTokens.toLocaleString("en")}</td>
              <td>{tenant.today.outputTokens.toLocaleString("en")}</td>
              <td>{dollars(tenant.today.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
