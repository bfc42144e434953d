// A runner over several engines: under any policy, the proxied ones with a proxy per engine; never
// with networks declared by hand. Each refusal names the option and says what to write.

import { afterEach, describe, expect, it } from "vitest";
import { createEngineSet, type EngineSet } from "../runtime/index.js";
import type { Engine } from "../engine/index.js";
import type { EgressGateway, EgressGatewaySet } from "../gateway/index.js";
import { createAgentRunner } from "./runner.js";

const engine = { create: async () => "id", ping: async () => undefined, hasImage: async () => true } as unknown as Engine;
const sets: EngineSet[] = [];
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
});

describe("a runner given several engines", () => {
  it("takes them under none and open, and refuses networks that live on one engine", () => {
    const engines = createEngineSet([{ name: "a", engine }]);
    sets.push(engines);
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines })).not.toThrow();
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "open" })).not.toThrow();
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networks: ["bridge"] })).toThrow(
      'networks ["bridge"] cannot go with engines: a network declared by hand lives on one engine, and a Run may be placed on any; use a networkPolicy over several engines, or one engine',
    );
  });

  it("takes model and allowlist with a proxy per engine, and refuses one proxy or none", () => {
    const engines = createEngineSet([{ name: "a", engine }]);
    sets.push(engines);
    const proxies = {
      alias: "egress",
      port: 8080,
      forEngine: async () => gateway,
      started: async () => [],
      close: async () => undefined,
    } as unknown as EgressGatewaySet;
    const gateway = { register: async () => ({ token: "t" }), container: "egress-1", alias: "egress", port: 8080 } as unknown as EgressGateway;
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "model", egress: proxies })).not.toThrow();
    expect(() =>
      createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "allowlist", allowlist: ["api.example.com:443"], egress: proxies }),
    ).not.toThrow();
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "model", egress: gateway })).toThrow(
      'networkPolicy "model" over engines needs a proxy on each engine, and egress is one proxy on one engine (a Run\'s network joins the proxy of the engine it is placed on); pass egress: await startEgressGateways({ runtimeDir, engines }) over the same engines',
    );
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "model" })).toThrow(
      'networkPolicy "model" over engines needs egress: a proxy on each engine; pass egress: await startEgressGateways({ runtimeDir, engines }) over the same engines',
    );
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", networkPolicy: "model", egress: proxies })).toThrow(
      "egress is a proxy per engine (startEgressGateways), but no engines are given; pass the same engines, or one proxy: egress: await startEgressGateway({ runtimeDir })",
    );
  });
});
