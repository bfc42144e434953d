// The in-cluster egress proxy brought up through the API (against the recorded exchange's fake,
// over a real socket): its objects made in order and fenced before the Pod, the Service's address
// read back, the control socket reached over an exec of the bridge, and nothing left by remove()
// or by a start the API refused. Nothing here has run against a live cluster.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exchange, FAKE_CLUSTER_IP, type FakeKubeApi, type FakeOptions, startFakeKubeApi } from "../../test/support/fake-kube-api.js";
import { startEgressProxyPod } from "./egress-proxy.js";
import { createKubeApi } from "./kube-api.js";
import { KubernetesError } from "./kube-error.js";
import type { EgressProxyPodOptions } from "./render-egress.js";
import { untilFound } from "../../test/support/until-found.js";

/** Any bridge: this layer runs the command it is given and waits for the line it is told (the gateway gives egress' own). */
const CONNECTED = "a-bridge: connected";
const SECRET = "a-control-secret-of-the-test-0123456789";
const OPTIONS: EgressProxyPodOptions = {
  name: "agentcage-egress-00000000000000aa",
  namespace: "agents",
  image: "agentcage-orchestrator:1",
  command: ["/usr/local/bin/agentcage-egress"],
  env: { AGENTCAGE_EGRESS_PORT: "8751" },
  user: "10002:10002",
  port: 8751,
  controlDir: "/run/agentcage",
  secretDir: "/run/agentcage-secret",
  labels: {},
  memoryBytes: 512 * 1024 * 1024,
  tmpBytes: 16 * 1024 * 1024,
};
const START = { bridge: ["a-bridge", "/run/agentcage/egress.sock"], connectedLine: CONNECTED, startTimeoutMs: 10_000 };

const root = mkdtempSync(join(tmpdir(), "agentcage-kube-proxy-"));
let fake: FakeKubeApi | undefined;
let echo: Server | undefined;
afterEach(async () => {
  await fake?.close();
  echo?.close();
  fake = undefined;
});

/** A control socket of the test's own that answers each line with "echo: " and the line. */
async function echoSocket(name: string): Promise<string> {
  const path = join(root, name);
  echo = createServer((socket) => socket.on("data", (chunk: Buffer) => socket.write(`echo: ${chunk.toString("utf8")}`)));
  await new Promise<void>((resolve) => echo?.listen(path, resolve));
  return path;
}

async function apiOn(options: FakeOptions) {
  fake = await startFakeKubeApi(exchange("run-completes"), options);
  return { fake, api: await createKubeApi({ kubeconfig: fake.kubeconfig }) };
}

describe("the in-cluster egress proxy, through the API", () => {
  it("makes its Secret, NetworkPolicy, Service and Pod in that order, reaches its control socket over exec, and removes all four", async () => {
    const { fake, api } = await apiOn({ proxyBridge: { socketPath: await echoSocket("control.sock"), connectedLine: CONNECTED } });
    const proxy = await startEgressProxyPod(api, OPTIONS, SECRET, START);
    expect(proxy).toMatchObject({ name: OPTIONS.name, namespace: "agents", clusterIP: FAKE_CLUSTER_IP, peer: { port: 8751 } });
    const creates = fake.requests.filter((r) => r.method === "POST").map((r) => (r.body as { kind: string }).kind);
    expect(creates).toEqual(["Secret", "NetworkPolicy", "Service", "Pod"]);
    const secret = fake.requests.find((r) => (r.body as { kind?: string } | undefined)?.kind === "Secret")?.body;
    expect(secret).toMatchObject({ stringData: { "control-secret": SECRET } });
    // The secret is in the Secret alone: no other object sent holds it.
    const others = fake.requests.filter((r) => r.body !== undefined && r.body !== secret);
    expect(JSON.stringify(others)).not.toContain(SECRET);

    const connection = await proxy.connect();
    const answer = new Promise<string>((resolve) => connection.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8"))));
    connection.write("hello\n");
    expect(await answer).toBe("echo: hello\n");
    connection.destroy();
    const exec = fake.requests.find((r) => r.path.endsWith("/exec"));
    expect(exec?.query.get("container")).toBe("egress");
    expect(exec?.query.getAll("command")).toEqual(START.bridge);

    await proxy.remove();
    expect(fake.objects()).toEqual([]);
  });

  it("removes what it made when the API refuses the Service, and says which", async () => {
    const { fake, api } = await apiOn({ refuse: { kind: "services", status: 403 } });
    const started = startEgressProxyPod(api, OPTIONS, SECRET, START);
    await expect(started).rejects.toThrow(KubernetesError);
    await expect(started).rejects.toThrow(/the egress proxy agentcage-egress-00000000000000aa could not be started in agents: HTTP 403/);
    await expect(started).rejects.not.toThrow(SECRET);
    expect(fake.objects()).toEqual([]);
  });

  it("gives up at the start bound a Pod that does not run, naming why, and leaves nothing", async () => {
    const { fake, api } = await apiOn({ proxyWaits: true });
    const started = startEgressProxyPod(api, OPTIONS, SECRET, { ...START, startTimeoutMs: 500 });
    await expect(started).rejects.toThrow("the egress proxy's Pod agentcage-egress-00000000000000aa did not start within 500 ms (ContainerCreating)");
    expect(fake.objects()).toEqual([]);
  });

  it("fails at once, naming it, when its Pod is deleted while it waits to run, and leaves nothing", async () => {
    const { fake, api } = await apiOn({ proxyWaits: true });
    const started = startEgressProxyPod(api, OPTIONS, SECRET, { ...START, startTimeoutMs: 600_000 });
    const failed = started.then(
      () => "started",
      (error: Error) => error.message,
    );
    await untilFound(() => fake.requests.find((r) => r.method === "GET" && r.query.get("watch") === "true"));
    await api.remove("Pod", "agents", OPTIONS.name);
    const deletedAt = performance.now();
    expect(await failed).toBe("the egress proxy's Pod agentcage-egress-00000000000000aa was deleted before it ran");
    // At once, not at the 600 s start bound.
    expect(performance.now() - deletedAt).toBeLessThan(15_000);
    expect(fake.objects()).toEqual([]);
  }, 60_000);

  it("fails at once when its Pod was deleted before its watch began (a watch of a Pod not there says nothing), and leaves nothing", async () => {
    const { fake, api } = await apiOn({ proxyWaits: true, proxyDeletedAtCreate: true });
    const began = performance.now();
    await expect(startEgressProxyPod(api, OPTIONS, SECRET, { ...START, startTimeoutMs: 600_000 })).rejects.toThrow(
      "the egress proxy's Pod agentcage-egress-00000000000000aa is not there (removed) before it ran",
    );
    expect(performance.now() - began).toBeLessThan(15_000);
    expect(fake.objects()).toEqual([]);
  }, 60_000);

  it("stops waiting when its start is cancelled, and leaves nothing", async () => {
    const { fake, api } = await apiOn({ proxyWaits: true });
    const controller = new AbortController();
    const started = startEgressProxyPod(api, OPTIONS, SECRET, { ...START, signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expect(started).rejects.toThrow("the egress proxy's start in agents was cancelled before its Pod agentcage-egress-00000000000000aa ran");
    expect(fake.objects()).toEqual([]);
  });

  it("says why when the bridge cannot reach the control socket", async () => {
    const { api } = await apiOn({ proxyBridge: { socketPath: join(root, "nothing.sock"), connectedLine: CONNECTED } });
    const proxy = await startEgressProxyPod(api, OPTIONS, SECRET, START);
    await expect(proxy.connect()).rejects.toThrow(/the egress proxy's control bridge in agentcage-egress-00000000000000aa ended before it connected/);
    await proxy.remove();
  });
});

process.on("exit", () => rmSync(root, { recursive: true, force: true }));
