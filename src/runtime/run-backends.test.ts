// The one choice of a Run Backend, with what a caller above the runtime keeps per kind (PerBackend):
// each kind's own answer is handed back with its backend, and options that name two are refused as before.

import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { createEngineSet, type EngineSet, type KubernetesBackend } from "./index.js";
import { chooseRunBackendWith, perBackend, type PerBackend } from "./run-backends.js";

const sets: EngineSet[] = [];
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
});

/** A KubeApi as far as the choice checks one: every call it makes is there, none is made. */
const kubernetes = {
  api: Object.fromEntries(
    ["createSecret", "createNetworkPolicy", "createPod", "watchPod", "attach", "exec", "remove", "listPods", "readNamespace"].map((call) => [
      call,
      () => Promise.reject(new Error(`${call} was not to be called`)),
    ]),
  ),
  namespace: "agents",
} as unknown as KubernetesBackend;

/** Each kind's answer names it and what it was made from. */
const NAMED: PerBackend<string> = {
  engine: () => "one engine",
  engines: (set) => `engines ${set.names.join(", ")}`,
  kubernetes: (cluster) => `the cluster's namespace ${cluster.namespace ?? ""}`,
};

describe("the Run Backend chosen with a caller's own for its kind", () => {
  it("hands back the answer of the kind the options name, made from that kind's option", () => {
    const set = createEngineSet([{ name: "a", engine: createFakeEngine() }]);
    sets.push(set);
    expect(perBackend({ engine: createFakeEngine() }, NAMED)).toBe("one engine");
    expect(perBackend({}, NAMED)).toBe("one engine");
    expect(perBackend({ engines: set }, NAMED)).toBe("engines a");
    expect(perBackend({ kubernetes }, NAMED)).toBe("the cluster's namespace agents");
    // An option left undefined is not given.
    expect(perBackend({ engines: undefined, kubernetes: undefined }, NAMED)).toBe("one engine");
  });

  it("gives the backend of the same kind beside it", () => {
    const set = createEngineSet([{ name: "a", engine: createFakeEngine() }]);
    sets.push(set);
    expect(chooseRunBackendWith({ engines: set }, NAMED)).toMatchObject({ own: "engines a", backend: { description: "engines a" } });
    expect(chooseRunBackendWith({ kubernetes }, NAMED)).toMatchObject({ own: "the cluster's namespace agents", backend: { runFiles: "engine" } });
    expect(chooseRunBackendWith({}, NAMED)).toMatchObject({ own: "one engine", backend: { description: "the Docker engine" } });
  });

  it("refuses options that name two backends before any kind's answer is made", () => {
    const asked: string[] = [];
    const each: PerBackend<void> = {
      engine: () => void asked.push("engine"),
      engines: () => void asked.push("engines"),
      kubernetes: () => void asked.push("kubernetes"),
    };
    expect(() => perBackend({ kubernetes, engine: createFakeEngine() }, each)).toThrow(
      /kubernetes is given with engine; a runtime runs its Runs on one backend/,
    );
    expect(() => perBackend({ kubernetes: { namespace: "agents" } as unknown as KubernetesBackend }, each)).toThrow(/kubernetes\.api is not a KubeApi/);
    expect(asked).toEqual([]);
  });
});
