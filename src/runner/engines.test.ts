// A runner over several engines: only under the "none" policy, without networks declared by hand;
// each refusal names the option and says what to write.

import { afterEach, describe, expect, it } from "vitest";
import { createEngineSet, type EngineSet } from "../runtime/index.js";
import type { Engine } from "../engine/index.js";
import { createAgentRunner } from "./runner.js";

const engine = { create: async () => "id", ping: async () => undefined, hasImage: async () => true } as unknown as Engine;
const sets: EngineSet[] = [];
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
});

describe("a runner given several engines", () => {
  it("takes them under the none policy, and refuses a policy or networks that live on one engine", () => {
    const engines = createEngineSet([{ name: "a", engine }]);
    sets.push(engines);
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines })).not.toThrow();
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "open" })).toThrow(
      'networkPolicy "open" cannot go with engines: the egress proxy and a Run\'s own networks live on one engine, and a Run may be placed on any; use networkPolicy "none" over several engines, or one engine',
    );
    expect(() => createAgentRunner({ image: "agentcage-agent:latest", engines, networks: ["bridge"] })).toThrow('networks ["bridge"] cannot go with engines');
  });
});
