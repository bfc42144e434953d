// Where the console is: its page in the address's fragment (#/runs/<id>), so a link or a reload
// lands on the same page, and nothing of it (nor the key) ever reaches the service in a URL.

import { useEffect, useState } from "preact/hooks";

/** The Runs list's filters, kept in the address so Back and a reload bring them back. */
export type RunFilters = { readonly state: string; readonly cli: string; readonly label: string; readonly tenant: string };
const FILTER_NAMES = ["state", "cli", "label", "tenant"] as const;

export type Route =
  | { readonly page: "runs"; readonly filters: RunFilters }
  | { readonly page: "run"; readonly id: string }
  | { readonly page: "new"; readonly resume?: string; readonly cli?: string }
  | { readonly page: "service" };

const RUN_ID = /^[0-9a-f]{16}$/;

export function routeOf(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter((part) => part !== "");
  if (parts[0] === "runs" && parts[1] !== undefined && RUN_ID.test(parts[1])) return { page: "run", id: parts[1] };
  if (parts[0] === "new") {
    const params = new URLSearchParams(query);
    const resume = params.get("resume");
    const cli = params.get("cli");
    return { page: "new", ...(resume === null ? {} : { resume }), ...(cli === null ? {} : { cli }) };
  }
  if (parts[0] === "service") return { page: "service" };
  const params = new URLSearchParams(query);
  const filters = Object.fromEntries(FILTER_NAMES.map((name) => [name, params.get(name) ?? ""])) as RunFilters;
  return { page: "runs", filters };
}

export function hrefOf(route: Route): string {
  switch (route.page) {
    case "runs": {
      const params = new URLSearchParams();
      for (const name of FILTER_NAMES) if (route.filters[name] !== "") params.set(name, route.filters[name]);
      const query = params.toString();
      return `#/runs${query === "" ? "" : `?${query}`}`;
    }
    case "run":
      return `#/runs/${route.id}`;
    case "service":
      return "#/service";
    case "new": {
      const params = new URLSearchParams();
      if (route.resume !== undefined) params.set("resume", route.resume);
      if (route.cli !== undefined) params.set("cli", route.cli);
      const query = params.toString();
      return `#/new${query === "" ? "" : `?${query}`}`;
    }
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const changed = () => setRoute(routeOf(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}
