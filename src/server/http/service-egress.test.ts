import { describe, expect, it, vi } from "vitest";
import { fakeTimersAtIdleLoad } from "../../../test/support/idle-load.js";
import type { EgressGateway } from "../../gateway/index.js";
import { EGRESS_PROBE_TIMEOUT_MS } from "../limits.js";
import { egressView } from "./service-egress.js";

// An idle machine's bounds, whatever this one is doing: the load's own effect is src/liveness' tests'.
fakeTimersAtIdleLoad();

function proxy(meter: () => Promise<unknown>, gone: () => Promise<string | undefined>): EgressGateway {
  return { container: "egress-1", alias: "egress", port: 8751, meter, gone } as unknown as EgressGateway;
}

async function viewOf(gateway: EgressGateway) {
  const viewing = egressView({ networkPolicy: "model", connected: false, gateway })();
  await vi.advanceTimersByTimeAsync(EGRESS_PROBE_TIMEOUT_MS + 1);
  return viewing;
}

describe("the egress proxy as GET /v1/service shows it", () => {
  it("answers when its control endpoint answered", async () => {
    expect(
      await viewOf(
        proxy(
          async () => undefined,
          async () => "is not running",
        ),
      ),
    ).toMatchObject({ answering: true });
  });

  it("is slow, and still answering, when it did not answer in time but is not shown gone", async () => {
    const view = await viewOf(
      proxy(
        () => new Promise(() => undefined),
        async () => undefined,
      ),
    );
    expect(view).toMatchObject({ answering: true, slow: true });
  });

  it("is not answering only when it is shown gone", async () => {
    const view = await viewOf(
      proxy(
        async () => {
          throw new Error("connect ECONNREFUSED");
        },
        async () => "refuses connections on its control endpoint (ECONNREFUSED)",
      ),
    );
    expect(view).toMatchObject({ answering: false });
    expect(view).not.toHaveProperty("slow");
  });
});
