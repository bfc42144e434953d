// Finding a deployment's own egress proxy against the fake engine: by the compose project of this
// process's container, never another project's on the same engine; refused, saying what to pass,
// when there is no compose container, no running proxy of the project, or more than one.

import { describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { RunRequestError } from "../index.js";
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, findDeploymentEgress } from "./index.js";

const compose = (project: string, service: string, extra: Record<string, string> = {}) => ({
  [COMPOSE_PROJECT_LABEL]: project,
  [COMPOSE_SERVICE_LABEL]: service,
  ...extra,
});

/** Two deployments on one engine, a and b, each an orchestrator and a proxy. */
function twoDeployments(others: Array<{ id: string; labels: Record<string, string>; running: boolean }> = []) {
  return createFakeEngine(
    {},
    {
      labels: { "orch-a": compose("a", "orchestrator"), "orch-b": compose("b", "orchestrator"), "plain-1": {} },
      others: [
        { id: "orch-a-id", labels: compose("a", "orchestrator"), running: true },
        { id: "egress-a-id", labels: compose("a", "egress"), running: true },
        { id: "orch-b-id", labels: compose("b", "orchestrator"), running: true },
        { id: "egress-b-id", labels: compose("b", "egress"), running: true },
        ...others,
      ],
    },
  );
}

describe("findDeploymentEgress", () => {
  it("answers each deployment with its own project's proxy", async () => {
    const engine = twoDeployments();
    expect(await findDeploymentEgress(engine, { self: "orch-a" })).toBe("egress-a-id");
    expect(await findDeploymentEgress(engine, { self: "orch-b" })).toBe("egress-b-id");
  });

  it("passes over a stopped proxy and a one-off `compose run` of the service", async () => {
    const engine = twoDeployments([
      { id: "old-egress-a", labels: compose("a", "egress"), running: false },
      { id: "oneoff-egress-a", labels: compose("a", "egress", { "com.docker.compose.oneoff": "True" }), running: true },
    ]);
    expect(await findDeploymentEgress(engine, { self: "orch-a" })).toBe("egress-a-id");
  });

  it("refuses, naming the override, outside a compose container, without a proxy, or with two", async () => {
    const refusal = (engine: ReturnType<typeof twoDeployments>, self: string) =>
      findDeploymentEgress(engine, { self }).then(
        () => "found",
        (error: unknown) => error,
      );
    const unknown = await refusal(twoDeployments(), "nobody");
    expect(unknown).toBeInstanceOf(RunRequestError);
    expect(String(unknown)).toMatch(/container "nobody" .* is not one the engine knows.*--egress-container/);
    expect(String(await refusal(twoDeployments(), "plain-1"))).toMatch(/"plain-1" has no com\.docker\.compose\.project label.*--egress-container/);
    const none = createFakeEngine({}, { labels: { "orch-c": compose("c", "orchestrator") } });
    expect(String(await refusal(none, "orch-c"))).toMatch(/compose project "c" has no running "egress" service container; start it .*--egress-container/);
    const scaled = twoDeployments([{ id: "egress-a-2", labels: compose("a", "egress"), running: true }]);
    expect(String(await refusal(scaled, "orch-a"))).toMatch(/compose project "a" runs 2 "egress" containers; scale it to one/);
  });
});
