// The recorded exchange's fake Kubernetes API with a real egress proxy behind it, as a cluster with
// agentcage's proxy Pod in it looks to a runtime: the proxy runs in this process and its control
// endpoint listens, with the secret the runtime put in the proxy's Secret (as the Pod reads it from
// its file), on the socket each exec of the bridge is joined to. Its model is the stand-in.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { BRIDGE_CONNECTED, createEgressProxy, startEgressControlEndpoint } from "../../src/egress/index.js";
import { startStandInModel } from "../stand-in/index.js";
import { exchange, type FakeKubeApi, type FakeOptions, startFakeKubeApi } from "./fake-kube-api.js";

export type ClusterWithProxy = {
  readonly fake: FakeKubeApi;
  /** The proxy's agents' port as this process reaches it, once the proxy listens ("" before). */
  readonly proxyUrl: () => string;
  readonly close: () => Promise<void>;
};

/** `controlAfterMs`: how long after its Secret is made the proxy's control socket begins to answer (a proxy slow to start); default at once. */
export async function clusterWithProxy(recorded: string, options: FakeOptions = {}, controlAfterMs = 0): Promise<ClusterWithProxy> {
  const dir = await mkdtemp(join(tmpdir(), "agentcage-kube-proxy-"));
  const socketPath = join(dir, "egress.sock");
  const fake = await startFakeKubeApi(exchange(recorded), { ...options, proxyBridge: { socketPath, connectedLine: BRIDGE_CONNECTED } });
  const standIn = await startStandInModel({ scenario: "plain" });
  const closing: Array<() => Promise<void>> = [];
  let url = "";
  let stopped = false;
  const listening = (async () => {
    while (!stopped) {
      const secret = fake.requests.find(
        (r) =>
          r.method === "POST" &&
          (r.body as { kind?: string } | undefined)?.kind === "Secret" &&
          r.path.endsWith("/secrets") &&
          (r.body as { metadata?: { name?: string } }).metadata?.name?.endsWith("-control"),
      )?.body as { stringData: Record<string, string> } | undefined;
      if (secret !== undefined) {
        const answersAt = Date.now() + controlAfterMs;
        while (!stopped && Date.now() < answersAt) await new Promise((resolve) => setTimeout(resolve, 20));
        if (stopped) return;
        const proxy = await createEgressProxy({ upstreams: { anthropic: standIn.url }, logger: pino({ level: "silent" }) });
        const endpoint = await startEgressControlEndpoint(proxy, { socketPath, secret: secret.stringData["control-secret"] as string });
        url = proxy.url;
        closing.push(async () => {
          await endpoint.close();
          await proxy.close();
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    fake,
    proxyUrl: () => url,
    close: async () => {
      stopped = true;
      await listening;
      for (const close of closing) await close();
      await fake.close();
      await standIn.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
