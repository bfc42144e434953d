// The service itself: its slots and queue, whether it can run an agent now (engine, images,
// credentials by kind, never a value), the egress proxy's state, and usage today per tenant
// (the caller's own tenant only, unless the key is the admin's). Read again every few seconds.

import { useEffect, useState } from "preact/hooks";
import type { Api, ServiceState } from "../api";
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

function ServiceView({ state }: { state: ServiceState; admin: boolean }) {
  return <pre class="text">{shortened(JSON.stringify(state, null, 2), 20_000)}</pre>;
}
