// The console's frame: the sign-in until a key works, then the navigation and the page the
// address names. A key the service stops taking (revoked, or the service restarted with another
// token) signs the tab out with the service's reason.

import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, apiWith } from "./api";
import { ZONE } from "./format";
import { NewRunPage } from "./pages/NewRunPage";
import { RunPage } from "./pages/RunPage";
import { RunsPage } from "./pages/RunsPage";
import { ServicePage } from "./pages/ServicePage";
import { SignIn } from "./pages/SignIn";
import { hrefOf, useRoute } from "./route";
import { forgetKey, keepKey, storedKey } from "./session";

const NO_FILTERS = { state: "", cli: "", label: "", tenant: "" };

export type Who = { readonly admin: boolean; readonly tenant: string };

/** Why a key did not sign in, in the words of the one who typed it. */
function refusalSaid(error: unknown): string {
  if (!(error instanceof ApiError)) return "The service did not answer; is agentcage serve running?";
  if (error.code === "unauthorized")
    return "This key was not accepted: it is mistyped, revoked or expired, or the service restarted (each start makes a new Operator's token; npm start prints it).";
  return error.message;
}

export function App() {
  const [key, setKey] = useState(storedKey);
  const [who, setWho] = useState<Who | undefined>(undefined);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const route = useRoute();
  const api = useMemo(() => (key === undefined ? undefined : apiWith(key)), [key]);

  const signOut = useCallback((reason?: string) => {
    forgetKey();
    setKey(undefined);
    setWho(undefined);
    setRefusal(reason);
  }, []);

  useEffect(() => {
    if (api === undefined) return;
    let current = true;
    // One call proves the key and says whose it is.
    api
      .service()
      .then(({ caller }) => current && setWho({ admin: caller.scope === "admin", tenant: caller.tenant }))
      .catch((error: unknown) => {
        if (!current) return;
        signOut(refusalSaid(error));
      });
    return () => {
      current = false;
    };
  }, [api, signOut]);

  if (key === undefined || api === undefined)
    return (
      <SignIn
        refusal={refusal}
        onKey={(given) => {
          keepKey(given);
          setRefusal(undefined);
          setKey(given);
        }}
      />
    );
  if (who === undefined) return <p class="loading">Signing in…</p>;
  return (
    <>
      <header class="bar">
        <a class="brand" href={hrefOf({ page: "runs", filters: NO_FILTERS })}>
          agentcage
        </a>
        <nav>
          <a href={hrefOf({ page: "runs", filters: NO_FILTERS })} class={route.page === "runs" || route.page === "run" ? "here" : ""}>
            Runs
          </a>
          <a href={hrefOf({ page: "new" })} class={route.page === "new" ? "here" : ""}>
            Start a Run
          </a>
          <a href={hrefOf({ page: "service" })} class={route.page === "service" ? "here" : ""}>
            Service
          </a>
        </nav>
        <span class="zone" title="every time on these pages is in this zone">
          times in {ZONE}
        </span>
        <span class="who">{who.admin ? `${who.tenant} (admin: every tenant)` : `tenant ${who.tenant}`}</span>
        <button type="button" class="quiet" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main>
        {route.page === "runs" && <RunsPage api={api} admin={who.admin} given={route.filters} />}
        {route.page === "run" && <RunPage api={api} id={route.id} key={route.id} />}
        {route.page === "new" && <NewRunPage api={api} resume={route.resume} cli={route.cli} />}
        {route.page === "service" && <ServicePage api={api} admin={who.admin} />}
      </main>
    </>
  );
}
