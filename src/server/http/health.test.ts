// The probes over a real socket with no engine: /readyz tells a probe ready or not and, when not, why
// in general words, and nothing a stranger could learn the service's load or setup from; a degraded
// service stays ready, saying what is degraded in general words, unless its degradation stops every Run.

import Fastify, { type FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import type { Degradation } from "../../runtime/index.js";
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

  it("answers a service that is not ready 503, saying why in its backend's general words", async () => {
    const unready = ["the container engine does not answer", "the agent image is not on the engine"];
    expect(await probe({ ready: false, engine: false, image: false, unready, ...busy })).toEqual({
      status: 503,
      body: { ready: false, reasons: unready },
    });
    expect(await probe({ ready: false, engine: true, image: false, unready: ['engine "b": the agent image is not on it'], ...busy })).toEqual({
      status: 503,
      body: { ready: false, reasons: ['engine "b": the agent image is not on it'] },
    });
  });

  it("says it cannot run an agent now when not ready for no reason its backend gave", async () => {
    expect(await probe({ ready: false, engine: true, image: true, ...busy })).toEqual({
      status: 503,
      body: { ready: false, reasons: ["it cannot run an agent now"] },
    });
  });
});

describe("/readyz of a degraded service", () => {
  const since = "2026-12-01T10:00:00.000Z";
  const pool: Degradation = {
    kind: "pool",
    subject: "",
    reason:
      'the warm pool could not make a container 18 times in a row (the last: runNetworkRange "10.213.0.0/16" overlaps this host\'s route to 10.213.64.0/24 via wg0)',
    fix: "mend it",
    stopsRuns: false,
    since,
  };
  const drained: Degradation = {
    kind: "engine",
    subject: "b",
    reason: 'the engine "b" stopped answering (ECONNREFUSED)',
    fix: "start it",
    stopsRuns: false,
    since,
  };

  it("stays ready (200) and says what is degraded in general words: no route, range or engine's words", async () => {
    const answer = await probe({ ready: true, engine: true, image: true, ...busy, degraded: [pool, drained] });
    expect(answer).toEqual({
      status: 200,
      body: {
        ready: true,
        degraded: [
          { kind: "pool", reason: "the warm pool cannot make its containers: Runs start cold", since },
          { kind: "engine", reason: 'engine "b": it stopped answering, and no Run goes there until it answers again', since },
        ],
      },
    });
    expect(JSON.stringify(answer.body)).not.toMatch(/10\.213|wg0|ECONNREFUSED/);
  });

  it("is not ready (503) while a degradation stops every Run, saying so among its reasons", async () => {
    const clash: Degradation = {
      kind: "run-network-range",
      subject: "",
      reason: "the Run networks' range 10.213.0.0/16 overlaps ...",
      fix: "name another",
      stopsRuns: true,
      since,
    };
    const reason = "the Run networks' address range clashes with a network of the host: no Run that needs a network of its own can start";
    expect(await probe({ ready: false, engine: true, image: true, ...busy, degraded: [clash] })).toEqual({
      status: 503,
      body: { ready: false, reasons: [reason], degraded: [{ kind: "run-network-range", reason, since }] },
    });
  });
});
