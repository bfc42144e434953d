// The egress proxy in a cluster as a runtime drives it, against the recorded exchange's fake API over
// a real socket: the proxy itself is a real one in this process, whose control endpoint listens with
// the secret the gateway put in the proxy's Secret (as the Pod reads it from its file), and the fake
// joins each exec of the bridge to that endpoint. A Run is registered, bound, metered and revoked
// over the exec; its token works at the proxy only from the address it was bound to. Nothing here
// has run against a live cluster.

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { FAKE_CLUSTER_IP } from "../../test/support/fake-kube-api.js";
import { atIdleLoad } from "../../test/support/idle-load.js";
import { type ClusterWithProxy, clusterWithProxy } from "../../test/support/kube-proxy.js";
import { DEFAULT_EGRESS_PORT } from "../egress/index.js";
import { ownershipLabels, thisProcess } from "../runtime/index.js";
import { createKubeApi } from "../kube/index.js";
import { startKubeEgressGateway } from "./kube-egress-gateway.js";
import { untilFound } from "../../test/support/until-found.js";

const KEY = "sk-ant-api03-kube-gateway-test-key-0123456789";
const silent = pino({ level: "silent" });

let cluster: ClusterWithProxy | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe("the egress proxy started in a cluster", () => {
  it("is reached over the bridge: a Run registered, bound to its Pod's address, metered and revoked; close removes its objects", async () => {
    cluster = await clusterWithProxy("run-completes");
    const { fake, proxyUrl } = cluster;
    const gateway = await startKubeEgressGateway({ api: await createKubeApi({ kubeconfig: fake.kubeconfig }), namespace: "agents", logger: silent });
    expect(gateway).toMatchObject({ alias: FAKE_CLUSTER_IP, port: DEFAULT_EGRESS_PORT, peer: { port: DEFAULT_EGRESS_PORT } });
    expect(gateway.peer.podLabels).toMatchObject({ "app.kubernetes.io/name": "agentcage-egress", "app.kubernetes.io/instance": gateway.container });
    expect(fake.objects().sort()).toEqual(
      [`networkpolicies/${gateway.container}`, `pods/${gateway.container}`, `secrets/${gateway.container}-control`, `services/${gateway.container}`].sort(),
    );

    const { token } = await gateway.register({ runId: "0000000000000001", provider: "anthropic", credential: { kind: "api_key", value: KEY }, sources: [] });
    const call = () =>
      fetch(`${proxyUrl()}/v1/messages/count_tokens`, { method: "POST", headers: { "x-api-key": token, "content-type": "application/json" }, body: "{}" }).then(
        (r) => r.status,
      );
    // Bound to the Pod's address, the token is refused from anywhere else; bound to this one, it works.
    expect(await gateway.bind("0000000000000001", ["10.244.1.7/32"])).toBe(true);
    expect(await call()).toBe(403);
    expect(await gateway.bind("0000000000000001", ["127.0.0.1/32"])).toBe(true);
    expect(await call()).toBe(200);
    expect(await gateway.meter("0000000000000001")).toMatchObject({ runId: "0000000000000001", requests: 1, refused: 1 });
    await gateway.revoke("0000000000000001");
    expect(await call()).toBe(401);
    // Every control call went over an exec of the bridge in the proxy's own container; none named a port.
    const execs = fake.requests.filter((r) => r.path.endsWith("/exec"));
    // Six control calls above (a meter at start, register, two binds, a meter, revoke) over connections kept alive between them.
    expect(execs.length).toBeGreaterThanOrEqual(1);
    expect(execs.length).toBeLessThan(6);
    for (const exec of execs) expect(exec.query.get("container")).toBe("egress");
    // The key went to the proxy over the control channel only: no object sent to the cluster holds it.
    expect(JSON.stringify(fake.requests.map((r) => r.body))).not.toContain(KEY);

    await gateway.close();
    expect(fake.objects()).toEqual([]);
  });

  it("removes, before it starts, a proxy a dead process of this host left, with its Service, NetworkPolicy and Secret; a live one's it keeps", async () => {
    const proxyPod = (name: string, pid: string) => ({
      metadata: {
        name,
        labels: {
          "agentcage.owner": "agentcage-egress",
          ...ownershipLabels({ session: "an-old-session", ...thisProcess(), pid, deadline: String(Number.MAX_SAFE_INTEGER) }),
        },
      },
    });
    const dead = proxyPod("agentcage-egress-00000000000000d1", "999999");
    const live = proxyPod("agentcage-egress-00000000000000a1", String(process.pid));
    cluster = await clusterWithProxy("run-completes", { listed: [dead, live] });
    const { fake } = cluster;
    const gateway = await startKubeEgressGateway({ api: await createKubeApi({ kubeconfig: fake.kubeconfig }), namespace: "agents", logger: silent });
    const deletes = fake.requests
      .filter((r) => r.method === "DELETE")
      .map((r) => r.path.replace("/api/v1/namespaces/agents/", "").replace("/apis/networking.k8s.io/v1/namespaces/agents/", ""));
    expect(deletes.sort()).toEqual(
      [
        "pods/agentcage-egress-00000000000000d1",
        "services/agentcage-egress-00000000000000d1",
        "networkpolicies/agentcage-egress-00000000000000d1",
        "secrets/agentcage-egress-00000000000000d1-control",
      ].sort(),
    );
    // The sweep asked for the proxies by their owner label, before the new proxy's first object.
    const listAt = fake.requests.findIndex((r) => r.method === "GET" && r.query.get("labelSelector") === "agentcage.owner=agentcage-egress");
    const firstCreate = fake.requests.findIndex((r) => r.method === "POST");
    expect(listAt).toBeGreaterThanOrEqual(0);
    expect(listAt).toBeLessThan(firstCreate);
    await gateway.close();
  });
});

describe("the start of the egress proxy in a cluster, once its Pod runs", () => {
  // Its Pod is asked after every 5 s stretched by the load: read as idle, each wait below outlasts it.
  atIdleLoad();

  it("waits for a control socket slower than 20 s to answer, as long as its Pod runs", async () => {
    cluster = await clusterWithProxy("run-completes", {}, 25_000);
    const waited: number[] = [];
    const began = performance.now();
    const gateway = await startKubeEgressGateway({
      api: await createKubeApi({ kubeconfig: cluster.fake.kubeconfig }),
      namespace: "agents",
      onWaiting: (waitedMs) => waited.push(waitedMs),
      logger: silent,
    });
    expect(performance.now() - began).toBeGreaterThanOrEqual(25_000);
    expect(waited.length).toBeGreaterThan(0);
    expect(await gateway.meter("0000000000000001")).toBeUndefined();
    await gateway.close();
    expect(cluster.fake.objects()).toEqual([]);
  }, 90_000);

  it("fails as soon as its Pod is gone while its control socket does not answer, naming it, and leaves nothing", async () => {
    cluster = await clusterWithProxy("run-completes", {}, 600_000);
    const api = await createKubeApi({ kubeconfig: cluster.fake.kubeconfig });
    const starting = startKubeEgressGateway({ api, namespace: "agents", logger: silent });
    const failed = starting.then(
      () => "started",
      (error: Error) => error.message,
    );
    // Once it runs (its control socket is asked over exec only then): the wait under test is the socket's, not the Pod's start.
    await untilFound(() => cluster?.fake.requests.find((r) => r.path.endsWith("/exec")));
    const pod = await untilFound(() => cluster?.fake.objects().find((key) => key.startsWith("pods/")));
    await api.remove("Pod", "agents", pod.slice("pods/".length));
    const removedAt = performance.now();
    expect(await failed).toMatch(
      new RegExp(`^the egress proxy's Pod ${pod.slice("pods/".length)} in agents is not there \\(removed\\) before its control socket answered`),
    );
    expect(performance.now() - removedAt).toBeLessThan(15_000);
    expect(cluster.fake.objects()).toEqual([]);
  }, 60_000);

  it("ends at a cancel while its control socket does not answer, and leaves nothing", async () => {
    cluster = await clusterWithProxy("run-completes", {}, 600_000);
    const controller = new AbortController();
    const starting = startKubeEgressGateway({
      api: await createKubeApi({ kubeconfig: cluster.fake.kubeconfig }),
      namespace: "agents",
      signal: controller.signal,
      logger: silent,
    });
    await untilFound(() => cluster?.fake.requests.find((r) => r.path.endsWith("/exec")));
    controller.abort(new Error("cancelled with Ctrl-C"));
    await expect(starting).rejects.toThrow(
      /^the start of the egress proxy's Pod agentcage-egress-[0-9a-f]+ in agents was cancelled \(cancelled with Ctrl-C\); what it made is removed$/,
    );
    expect(cluster.fake.objects()).toEqual([]);
  }, 60_000);
});
