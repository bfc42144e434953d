// The probes over a real socket with no engine: /readyz tells a probe ready or not and, when not, why
// in general words, and nothing a stranger could learn the service's load or setup from.

import Fastify, { type FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { registerHealthRoutes, type Readiness } from "./health.js";

async function probe(readiness: Readiness): Promise<{ status: number; body: unknown }> {
  const app: FastifyInstance = Fastify();
  registerHealthRoutes(app, async () => readiness);
  try {
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    const answer = await fetch(`${url}/readyz`);
    return { status: answer.status, body: await answer.json() };
  } finally {
    await app.close();
  }
}

const busy = { credentials: { claude: "api_key", codex: "login" }, slots: { total: 4, running: 3, queued: 17 } };

describe("/readyz", () => {
  it("answers a ready service 200 with ready alone: no credentials, no counts", async () => {
    expect(await probe({ ready: true, engine: true, image: true, ...busy })).toEqual({ status: 200, body: { ready: true } });
  });

  it("answers a service that is not ready 503, saying why in general words", async () => {
    expect(await probe({ ready: false, engine: false, image: false, ...busy })).toEqual({
      status: 503,
      body: { ready: false, reasons: ["the container engine does not answer", "the agent image is not on the engine"] },
    });
    expect(await probe({ ready: false, engine: true, image: false, ...busy })).toEqual({
      status: 503,
      body: { ready: false, reasons: ["the agent image is not on the engine"] },
    });
  });
});
