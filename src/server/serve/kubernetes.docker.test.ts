// `agentcage serve --kubernetes agents` as its own process (the built command, which the engine project
// builds; no Docker engine is used) against the fake Kubernetes API, spoken to over real HTTP.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { exchange, type FakeKubeApi, type FakeOptions, startFakeKubeApi } from "../../../test/support/fake-kube-api.js";
import { type ClusterWithProxy, clusterWithProxy } from "../../../test/support/kube-proxy.js";
import { startServeProcess } from "../../../test/support/serve-process.js";
import { tarOf } from "../../../test/support/tar.js";

const TOKEN = "serve-kubernetes-test-token-0123456789";
const KEY = "sk-ant-made-up-serve-kubernetes-0123456789";
const root = mkdtempSync(join(tmpdir(), "agentcage-serve-kube-"));
const children: ChildProcess[] = [];
const fakes: FakeKubeApi[] = [];
const clusters: ClusterWithProxy[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGKILL");
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once("exit", resolve));
  }
  for (const fake of fakes.splice(0)) await fake.close();
  for (const cluster of clusters.splice(0)) await cluster.close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function fakeCluster(name: string, options: FakeOptions = {}): Promise<{ fake: FakeKubeApi; kubeconfig: string }> {
  const fake = await startFakeKubeApi(exchange(name), options);
  fakes.push(fake);
  const kubeconfig = join(mkdtempSync(join(root, "kube-")), "kubeconfig");
  writeFileSync(kubeconfig, fake.kubeconfig, { mode: 0o600 });
  return { fake, kubeconfig };
}

async function startService(kubeconfig: string, runtimeDir = mkdtempSync(join(root, "rt-")), ...extra: string[]) {
  const started = await startServeProcess({
    runtimeDir,
    token: TOKEN,
    standIn: false,
    args: ["--kubernetes", "agents", "--slots", "1", ...extra],
    env: { KUBECONFIG: kubeconfig, ANTHROPIC_API_KEY: KEY },
  });
  children.push(started.child);
  return { ...started, runtimeDir };
}

/** A FormData body goes as multipart (the Run's request and its inputs), anything else as JSON. */
function call(url: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const form = init.body instanceof FormData;
  return fetch(`${url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { authorization: `Bearer ${TOKEN}`, ...(init.body === undefined || form ? {} : { "content-type": "application/json" }) },
    ...(init.body === undefined ? {} : { body: form ? (init.body as FormData) : JSON.stringify(init.body) }),
  });
}

async function json(url: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  return (await call(url, path, body === undefined ? {} : { body })).json() as Promise<Record<string, unknown>>;
}

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 30 s`);
}

const podsOf = (fake: FakeKubeApi) => fake.objects().filter((o) => o.startsWith("pods/"));

describe("agentcage serve --kubernetes", () => {
  it("runs a Run as a Pod: its events, its Outcome completed, its harvested file, and nothing left in the cluster", async () => {
    const { fake, kubeconfig } = await fakeCluster("run-with-files");
    const service = await startService(kubeconfig);
    expect(await (await fetch(`${service.url}/readyz`)).json()).toEqual({ ready: true });
    const checks = (await json(service.url, "/v1/service"))["checks"] as Record<string, unknown>;
    expect(checks["cluster"]).toMatchObject({ answers: true, namespace: "agents", server: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/) });
    const submitted = await json(service.url, "/v1/runs", { cli: "claude", prompt: "What is six times seven?" });
    const id = submitted["id"] as string;
    const events = await (await call(service.url, `/v1/runs/${id}/events`)).text();
    expect(events).toContain("event: end");
    expect(events).toContain('"state":"running"');
    const run = await json(service.url, `/v1/runs/${id}`);
    expect(run).toMatchObject({ state: "completed", outcome: { ok: true, reason: "completed", runId: id } });
    expect(await (await call(service.url, `/v1/runs/${id}/artifacts/answer.txt`)).text()).toBe("42\n");
    expect(fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/pods"))?.path).toBe("/api/v1/namespaces/agents/pods");
    expect(fake.objects()).toEqual([]);
    expect((await call(service.url, "/metrics")).status).toBe(200);
    // The API server gone: not ready, in general words, and GET /v1/service names the cluster for the admin.
    await fake.close();
    fakes.splice(fakes.indexOf(fake), 1);
    const probe = await fetch(`${service.url}/readyz`);
    expect(probe.status).toBe(503);
    expect(await probe.json()).toEqual({ ready: false, reasons: ["the Kubernetes API server does not answer"] });
    const seen = (await json(service.url, "/v1/service"))["checks"] as Record<string, Record<string, unknown>>;
    expect(seen["cluster"]).toMatchObject({ answers: false, namespace: "agents", problem: expect.stringContaining("does not answer") });
  }, 60_000);

  it("puts a Run's input files in its Pod, and serves a writable Run's change set", async () => {
    const { fake, kubeconfig } = await fakeCluster("run-with-files", { holderEntries: [{ name: "question.txt", content: "six times seven is 42\n" }] });
    const service = await startService(kubeconfig);
    const form = new FormData();
    form.append("request", JSON.stringify({ cli: "claude", prompt: "answer in question.txt", writable: true }));
    form.append("inputs", new Blob([await tarOf({ "question.txt": "six times seven\n" })]), "inputs.tar");
    const submitted = await call(service.url, "/v1/runs", { body: form });
    expect(submitted.status).toBe(202);
    const id = ((await submitted.json()) as { id: string }).id;
    await (await call(service.url, `/v1/runs/${id}/events`)).text();
    expect(fake.inputs().get("question.txt")).toBe("six times seven\n");
    expect(await json(service.url, `/v1/runs/${id}`)).toMatchObject({
      state: "completed",
      outcome: { harvest: { ok: true, changes: { added: [], changed: ["question.txt"], deleted: [] } } },
    });
    expect(await (await call(service.url, `/v1/runs/${id}/artifacts/files/question.txt`)).text()).toBe("six times seven is 42\n");
    expect(fake.objects()).toEqual([]);
  }, 60_000);

  it("cancels a Run whose Pod waits to be scheduled: its Pod, NetworkPolicy and Secret are deleted, its Outcome cancelled", async () => {
    const { fake, kubeconfig } = await fakeCluster("unschedulable");
    const service = await startService(kubeconfig);
    const id = (await json(service.url, "/v1/runs", { cli: "claude", prompt: "never scheduled" }))["id"] as string;
    await until(() => fake.objects().length === 3, "the Run's Pod, NetworkPolicy and Secret being made");
    const cancelled = await call(service.url, `/v1/runs/${id}/cancel`, { method: "POST" });
    expect(cancelled.status).toBeLessThan(300);
    await until(async () => (await json(service.url, `/v1/runs/${id}`))["state"] === "cancelled", "the Run ending cancelled");
    expect((await json(service.url, `/v1/runs/${id}`))["outcome"]).toMatchObject({ reason: "cancelled" });
    expect(fake.objects()).toEqual([]);
    const deleted = fake.requests.filter((r) => r.method === "DELETE").map((r) => r.path.split("/").slice(-2)[0]);
    expect(deleted).toEqual(expect.arrayContaining(["pods", "networkpolicies", "secrets"]));
  }, 60_000);

  it("refuses a request a Pod cannot honour with 400 naming the field and its value", async () => {
    const { kubeconfig } = await fakeCluster("run-with-files");
    const service = await startService(kubeconfig);
    const session = "0f8e2c1a-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
    const refused = await call(service.url, "/v1/runs", { body: { cli: "claude", prompt: "go on", resumeSession: session } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toBe(
      `resumeSession "${session}" (a session store does not reach a Pod yet) cannot go with this service, whose Runs are Pods (agentcage serve --kubernetes); leave it out`,
    );
  }, 60_000);

  it("after a kill, ends the Run that was running, removes its Pod, and starts the queued one as a Pod", async () => {
    const { fake, kubeconfig } = await fakeCluster("unschedulable");
    const first = await startService(kubeconfig);
    const running = (await json(first.url, "/v1/runs", { cli: "claude", prompt: "pending when killed" }))["id"] as string;
    await until(() => podsOf(fake).length === 1, "the first Run's Pod being made");
    const queued = await json(first.url, "/v1/runs", { cli: "claude", prompt: "waits for the slot" });
    expect(queued["state"]).toBe("queued");
    first.child.kill("SIGKILL");
    await first.exited;
    expect(podsOf(fake)).toEqual([`pods/agentcage-${running}`]);

    const second = await startService(kubeconfig, first.runtimeDir);
    const ended = await json(second.url, `/v1/runs/${running}`);
    expect(ended).toMatchObject({ state: "failed", outcome: { reason: "unavailable" } });
    expect(JSON.stringify(ended["outcome"])).toContain("the service stopped while this Run ran");
    await until(() => podsOf(fake).join() === `pods/agentcage-${queued["id"] as string}`, "the killed process's Pod gone, the queued Run's made");
    expect(fake.objects()).not.toContain(`networkpolicies/agentcage-${running}`);
    expect(fake.objects()).not.toContain(`secrets/agentcage-${running}-env`);
  }, 60_000);
});

describe("agentcage serve --kubernetes --network-policy model", () => {
  it("runs a Run through the egress proxy it started in the cluster, and removes that proxy when it stops", async () => {
    const cluster = await clusterWithProxy("run-with-files");
    clusters.push(cluster);
    const kubeconfig = join(mkdtempSync(join(root, "kube-")), "kubeconfig");
    writeFileSync(kubeconfig, cluster.fake.kubeconfig, { mode: 0o600 });
    const service = await startService(kubeconfig, undefined, "--network-policy", "model");
    const proxyObjects = () => cluster.fake.objects().filter((name) => name.includes("agentcage-egress-"));
    expect(
      proxyObjects()
        .map((name) => name.split("/")[0])
        .sort(),
    ).toEqual(["networkpolicies", "pods", "secrets", "services"]);
    const submitted = await json(service.url, "/v1/runs", { cli: "claude", prompt: "What is six times seven?" });
    const id = submitted["id"] as string;
    await until(async () => (await json(service.url, `/v1/runs/${id}`))["outcome"] !== undefined, "the Run's end");
    expect(await json(service.url, `/v1/runs/${id}`)).toMatchObject({ state: "completed", outcome: { ok: true, network: { policy: "model" } } });
    // Its Pod was fenced to the proxy alone, and its agent held a token, never the key.
    const policy = cluster.fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/networkpolicies") && JSON.stringify(r.body).includes(id))
      ?.body as { spec: { ingress: unknown[]; egress: Array<{ to: Array<{ podSelector: { matchLabels: Record<string, string> } }> }> } };
    const proxyPod = cluster.fake
      .objects()
      .find((name) => name.startsWith("pods/agentcage-egress-"))
      ?.slice("pods/".length);
    expect(policy.spec.ingress).toEqual([]);
    expect(policy.spec.egress).toEqual([
      {
        to: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "agentcage-egress", "app.kubernetes.io/instance": proxyPod } } }],
        ports: [{ protocol: "TCP", port: 8751 }],
      },
    ]);
    expect(JSON.stringify(cluster.fake.requests.map((r) => r.body))).not.toContain(KEY);
    service.child.kill("SIGTERM");
    await new Promise((resolve) => service.child.once("exit", resolve));
    expect(cluster.fake.objects()).toEqual([]);
  }, 60_000);
});

describe("agentcage serve --kubernetes, refused at start", () => {
  it.each([
    [["--pool", "2"], "--pool 2 (Docker containers started ahead; every Pod starts cold) cannot go with --kubernetes; leave it out"],
    [["--network-policy", "open"], "--network-policy open cannot go with --kubernetes: a Pod reaches only what its NetworkPolicy lets it"],
    [["--run-files", "disk"], "--run-files disk (a cluster's nodes do not share this host's disk) cannot go with --kubernetes; leave it out"],
    [["--engine", "local"], "--engine (a Docker engine; a Run's Pod goes to the cluster the kubeconfig names) cannot go with --kubernetes; leave it out"],
  ])(
    "refuses %j in the words of run --kubernetes",
    async (flags, words) => {
      const { kubeconfig } = await fakeCluster("run-with-files");
      await expect(startService(kubeconfig, undefined, ...flags)).rejects.toThrow(words);
    },
    60_000,
  );

  it("refuses a namespace without the restricted Pod Security label, saying which label to set", async () => {
    const { kubeconfig } = await fakeCluster("run-with-files", { namespaces: { agents: {} } });
    await expect(startService(kubeconfig)).rejects.toThrow(
      'namespace "agents" has no Pod Security label, so the cluster would not refuse a Pod that lost a security field; run `kubectl label namespace agents pod-security.kubernetes.io/enforce=restricted`',
    );
  }, 60_000);

  it("refuses an API server that does not answer, naming it and what to do", async () => {
    const { fake, kubeconfig } = await fakeCluster("run-with-files");
    const server = /http:\/\/127\.0\.0\.1:\d+/.exec(fake.kubeconfig)?.[0] as string;
    await fake.close();
    fakes.splice(fakes.indexOf(fake), 1);
    await expect(startService(kubeconfig)).rejects.toThrow(
      new RegExp(`the Kubernetes API server at ${server.replace(/\./g, "\\.")} does not answer .*; check that the cluster is up`),
    );
  }, 60_000);
});
