// The client path against a recorded exchange of the real API's wire format (test/fixtures/kube):
// create, watch to running, attach (v5 channel framing), exit from the Pod's status, removal; and
// the ways a Pod never runs, each ended `unavailable` at a bounded time naming Kubernetes' reason.
// A local fake API server replays the exchange; nothing here has run against a live cluster.
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { exchange, type FakeKubeApi, type FakeOptions, startFakeKubeApi } from "../../test/support/fake-kube-api.js";
import { seeded, specFor } from "../../test/support/kube-specs.js";
import { atIdleLoad } from "../../test/support/idle-load.js";
import { createKubeApi } from "./kube-api.js";
import { renderPodManifest } from "./manifest.js";
import { runPod } from "./pod-run.js";
import { sweepPods } from "./pod-sweep.js";

// The bounds as written, whatever this machine's load: these tests are of what happens at them.
atIdleLoad();

const SECRET = "sk-ant-pod-run-secret-value-42";
const OPTIONS = { namespace: "agents", outBytes: 1024 * 1024, network: { policy: "none" } } as const;
/** Run id 1, so the Pod is the fixtures' agentcage-0000000000000001. */
const spec = specFor({ image: "agentcage-agent:1", user: "10002:10002", env: { ANTHROPIC_API_KEY: SECRET }, labels: { team: "agents" } }, seeded(9), 0);

let fake: FakeKubeApi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function replay(name: string, options: FakeOptions = {}) {
  fake = await startFakeKubeApi(exchange(name), options);
  return { fake, api: await createKubeApi({ kubeconfig: fake.kubeconfig }) };
}

const calls = (f: FakeKubeApi) => f.requests.filter((r) => r.query.get("watch") !== "true").map((r) => `${r.method} ${r.path}`);

describe("a Run's Pod that reaches the egress proxy (onAddress)", () => {
  const proxied = { ...OPTIONS, network: { policy: "model", proxy: { podLabels: { "app.kubernetes.io/name": "agentcage-egress" }, port: 8751 } } } as const;

  it("tells the Pod's address before the agent's stdin is sent, when the agent runs at once (no inputs)", async () => {
    const { fake, api } = await replay("run-completes");
    const told: Array<{ podIPs: readonly string[]; stdinBefore: number; attachesBefore: number }> = [];
    const result = await runPod(api, spec, proxied, {
      stdin: "Say hi",
      onAddress: async (podIPs) => {
        told.push({ podIPs, stdinBefore: fake.stdin().bytes.length, attachesBefore: fake.requests.filter((r) => r.path.endsWith("/attach")).length });
      },
    });
    expect(result).toMatchObject({ kind: "exited", exitCode: 0 });
    expect(told).toEqual([{ podIPs: ["10.244.1.7"], stdinBefore: 0, attachesBefore: 0 }]);
  });

  it("ends unavailable when the proxy does not take the address, sending nothing and removing what it made", async () => {
    const { fake, api } = await replay("run-completes");
    const result = await runPod(api, spec, proxied, {
      stdin: "Say hi",
      onAddress: () => Promise.reject(new Error("the egress proxy no longer knows the Run")),
    });
    expect(result).toEqual({
      kind: "unavailable",
      reason: "EgressRefused",
      message: "the egress proxy did not take the Pod's address: the egress proxy no longer knows the Run",
    });
    expect(fake.requests.filter((r) => r.path.endsWith("/attach"))).toEqual([]);
    expect(fake.objects()).toEqual([]);
  });
});

describe("a Run as a Pod, against a recorded exchange", () => {
  it("creates Secret, NetworkPolicy and Pod in that order, attaches, reads the exit, and removes all three", async () => {
    const { fake, api } = await replay("run-completes");
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi" });
    expect(result).toEqual({
      kind: "exited",
      exitCode: 0,
      reason: "Completed",
      stdout: Buffer.from('{"type":"system","subtype":"init"}\n{"type":"result","subtype":"success","is_error":false,"result":"hi"}\n'),
      stderr: Buffer.from("warming up\n"),
      truncated: false,
    });
    expect(fake.stdin()).toEqual({ bytes: Buffer.from("Say hi"), closed: true });
    const base = "/api/v1/namespaces/agents";
    expect(calls(fake)).toEqual([
      `POST ${base}/secrets`,
      "POST /apis/networking.k8s.io/v1/namespaces/agents/networkpolicies",
      `POST ${base}/pods`,
      `GET ${base}/pods/agentcage-0000000000000001/attach`,
      `DELETE ${base}/pods/agentcage-0000000000000001`,
      "DELETE /apis/networking.k8s.io/v1/namespaces/agents/networkpolicies/agentcage-0000000000000001",
      `DELETE ${base}/secrets/agentcage-0000000000000001-env`,
    ]);
    const creates = fake.requests.filter((r) => r.method === "POST");
    for (const create of creates) expect(create.query.get("fieldValidation")).toBe("Strict");
    const attach = fake.requests.find((r) => r.path.endsWith("/attach"));
    expect(Object.fromEntries(attach?.query ?? [])).toEqual({ container: "agent", stdin: "true", stdout: "true", stderr: "true", tty: "false" });
    // What reached the API is the rendered Pod; the secret value only in the Secret.
    const manifest = renderPodManifest(spec, OPTIONS);
    const [secret, policy, pod] = creates.map((c) => c.body as Record<string, unknown>);
    expect(pod).toMatchObject({ metadata: manifest.pod.metadata, spec: { securityContext: manifest.pod.spec?.securityContext, restartPolicy: "Never" } });
    expect((pod as { spec: { containers: unknown[] } }).spec.containers[0]).toMatchObject({
      securityContext: manifest.pod.spec?.containers[0]?.securityContext,
    });
    expect(policy).toMatchObject({ spec: manifest.networkPolicy.spec });
    expect(secret).toMatchObject({ kind: "Secret", metadata: { name: "agentcage-0000000000000001-env" }, stringData: { ANTHROPIC_API_KEY: SECRET } });
    expect(JSON.stringify([pod, policy])).not.toContain(SECRET);
  });

  it("watches again when the API server ends its watch midway, and still reads the exit", async () => {
    const { fake, api } = await replay("run-completes", { endWatchesAfter: 2 });
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi" });
    expect(result).toMatchObject({ kind: "exited", exitCode: 0, reason: "Completed" });
    expect(fake.requests.filter((r) => r.query.get("watch") === "true").length).toBeGreaterThan(1);
  });

  it("reports an OOM kill as the kubelet names it, with exit status 137", async () => {
    const { api } = await replay("oom-killed");
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi" });
    expect(result).toMatchObject({ kind: "exited", exitCode: 137, reason: "OOMKilled" });
  });

  it("keeps only maxOutputBytes of stdout and says it dropped the rest", async () => {
    const { api } = await replay("run-completes");
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", maxOutputBytes: 10 });
    expect(result).toMatchObject({ kind: "exited", stdout: Buffer.from('{"type":"s'), truncated: true });
  });
});

describe("a Pod that never runs", () => {
  it("ends unavailable at the start bound when it cannot be scheduled, naming Unschedulable and why", async () => {
    const { fake, api } = await replay("unschedulable");
    const started = Date.now();
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", startTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3 * 300 + 1000);
    expect(result).toEqual({
      kind: "unavailable",
      reason: "Unschedulable",
      message: expect.stringMatching(/^the Pod did not start within 300 ms \(Unschedulable: 0\/3 nodes are available: 3 Insufficient memory\./),
    });
    expect(calls(fake).filter((c) => c.startsWith("DELETE"))).toHaveLength(3);
    expect(fake.stdin().bytes).toHaveLength(0);
  });

  it("ends cancelled at once when the caller aborts while the Pod waits to be scheduled, and removes it", async () => {
    const { fake, api } = await replay("unschedulable");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", startTimeoutMs: 20_000, signal: controller.signal });
    expect(result).toEqual({ kind: "cancelled" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(calls(fake).filter((c) => c.startsWith("DELETE"))).toHaveLength(3);
  });

  it("ends unavailable at once on ImagePullBackOff, naming it, well before the start bound", async () => {
    const { api } = await replay("image-pull-backoff");
    const started = Date.now();
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", startTimeoutMs: 20_000 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toEqual({ kind: "unavailable", reason: "ImagePullBackOff", message: 'Back-off pulling image "agentcage-agent:1"' });
  });

  it("waits out ErrImagePull (it may pass) only until the start bound, then names it with the puller's message", async () => {
    const { api } = await replay("image-pull-error");
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", startTimeoutMs: 300 });
    expect(result).toMatchObject({ kind: "unavailable", reason: "ErrImagePull", message: expect.stringContaining("pull access denied") });
  });

  it("refuses an API server that attaches with v4, which cannot close stdin and keep stdout, sending no prompt", async () => {
    const { fake, api } = await replay("attach-v4");
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi" });
    expect(result).toMatchObject({ kind: "unavailable", reason: "AttachProtocol", message: expect.stringContaining('"v4.channel.k8s.io"') });
    expect(fake.stdin().bytes).toHaveLength(0);
    expect(calls(fake).filter((c) => c.startsWith("DELETE"))).toHaveLength(3);
  });

  it("ends unavailable when the API refuses the Pod, naming the status, and removes what it made before", async () => {
    const { fake, api } = await replay("run-completes", { refuse: { kind: "pods", status: 403 } });
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi" });
    expect(result).toMatchObject({ kind: "unavailable", reason: "ApiError", message: expect.stringContaining("HTTP 403") });
    expect(calls(fake).filter((c) => c.startsWith("DELETE"))).toEqual([
      "DELETE /apis/networking.k8s.io/v1/namespaces/agents/networkpolicies/agentcage-0000000000000001",
      "DELETE /api/v1/namespaces/agents/secrets/agentcage-0000000000000001-env",
    ]);
  });
});

describe("a Pod that is slow, and one that is gone", () => {
  it("waits for an exit the API reports late, telling each late bound, and reads it", async () => {
    const { api } = await replay("run-completes", { lineGapMs: 400 });
    const late: string[] = [];
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", exitReportMs: 100, onSlow: (what) => late.push(what) });
    expect(result).toMatchObject({ kind: "exited", exitCode: 0, reason: "Completed" });
    expect(late.length).toBeGreaterThan(0);
    expect(late[0]).toMatch(/^the API has not reported the agent's exit since its output ended, past 100 ms/);
  });

  it("ends unavailable, naming PodDeleted, when the Pod is deleted before its exit was reported, and removes the rest", async () => {
    const recorded = exchange("run-completes");
    const running = recorded.watchBeforeAttach.at(-1)?.object ?? {};
    fake = await startFakeKubeApi({ ...recorded, watchAfterAttach: [{ type: "DELETED", object: running }] });
    const api = await createKubeApi({ kubeconfig: fake.kubeconfig });
    const result = await runPod(api, spec, OPTIONS, { stdin: "Say hi", exitReportMs: 100 });
    expect(result).toEqual({ kind: "unavailable", reason: "PodDeleted", message: "the Pod was deleted (not by this Run) before its agent's end was reported" });
    expect(fake.objects()).toEqual([]);
  });

  it("ends unavailable, naming the API server, when it refuses the watch of a Pod whose exit was not yet reported", async () => {
    const withoutExit = await startFakeKubeApi({ ...exchange("run-completes"), watchAfterAttach: [] });
    fake = withoutExit;
    const api = await createKubeApi({ kubeconfig: withoutExit.kubeconfig });
    const running = runPod(api, spec, OPTIONS, { stdin: "Say hi", exitReportMs: 100 });
    // Once the agent's output ended, the API server goes: its address refuses.
    for (let i = 0; i < 200 && !withoutExit.stdin().closed; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await withoutExit.close();
    const result = await running;
    expect(result).toMatchObject({ kind: "unavailable", reason: "ApiServerGone", message: expect.stringContaining("refused 3 watches of the Pod in a row") });
  });
});

describe("the sweep by label", () => {
  const pod = (name: string, labels: Record<string, string>) => ({ kind: "Pod", apiVersion: "v1", metadata: { name, namespace: "agents", labels } });
  const owner = { "agentcage.owner": "agentcage" };

  it("removes what is past its deadline and this session's own that is not live, and nothing of another live process", async () => {
    const listed = [
      pod("agentcage-past", { ...owner, "agentcage.run": "past", "agentcage.session": "other", "agentcage.deadline": "1000" }),
      pod("agentcage-mine", { ...owner, "agentcage.run": "mine", "agentcage.session": "me", "agentcage.deadline": "9999999999999" }),
      pod("agentcage-live", { ...owner, "agentcage.run": "live", "agentcage.session": "me", "agentcage.deadline": "9999999999999" }),
      pod("agentcage-theirs", { ...owner, "agentcage.run": "theirs", "agentcage.session": "other", "agentcage.deadline": "9999999999999" }),
    ];
    const { fake, api } = await replay("run-completes", { listed });
    const removed = await sweepPods(api, { namespace: "agents", owner: "agentcage", session: "me", isLive: (run) => run === "live", now: 5000 });
    expect(removed).toEqual(["agentcage-past", "agentcage-mine"]);
    const list = fake.requests.find((r) => r.method === "GET");
    expect(list?.query.get("labelSelector")).toBe("agentcage.owner=agentcage");
    expect(calls(fake).filter((c) => c.startsWith("DELETE"))).toEqual([
      "DELETE /api/v1/namespaces/agents/pods/agentcage-past",
      "DELETE /apis/networking.k8s.io/v1/namespaces/agents/networkpolicies/agentcage-past",
      "DELETE /api/v1/namespaces/agents/secrets/agentcage-past-env",
      "DELETE /api/v1/namespaces/agents/pods/agentcage-mine",
      "DELETE /apis/networking.k8s.io/v1/namespaces/agents/networkpolicies/agentcage-mine",
      "DELETE /api/v1/namespaces/agents/secrets/agentcage-mine-env",
    ]);
  });
});

describe("the recorded exchange's server, as strict as the API server", () => {
  const post = (f: FakeKubeApi, path: string, body: unknown, query = "?fieldValidation=Strict") =>
    fetch(`${JSON.parse(f.kubeconfig).clusters[0].cluster.server}${path}${query}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("refuses a field the API does not declare, a create without strict validation, another namespace and a path the API has not", async () => {
    const { fake } = await replay("run-completes");
    const pod = renderPodManifest(spec, OPTIONS).pod;
    const typo = { ...pod, spec: { ...pod.spec, containers: [{ ...pod.spec?.containers[0], securityContex: {} }] } };
    const refused = await post(fake, "/api/v1/namespaces/agents/pods", typo);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/strict decoding error: unknown field "spec.containers\[0\].securityContex"/);
    expect((await post(fake, "/api/v1/namespaces/agents/pods", pod, "")).status).toBe(400);
    expect((await post(fake, "/api/v1/namespaces/elsewhere/pods", pod)).status).toBe(400);
    expect((await post(fake, "/api/v1/namespaces/agents/pod", pod)).status).toBe(404);
    expect((await post(fake, "/apis/networking.k8s.io/v1/namespaces/agents/pods", pod)).status).toBe(404);
    expect(fake.objects()).toEqual([]);
    expect((await post(fake, "/api/v1/namespaces/agents/pods", pod)).status).toBe(201);
    expect((await post(fake, "/api/v1/namespaces/agents/pods", pod)).status).toBe(409);
    expect(fake.objects()).toEqual(["pods/agentcage-0000000000000001"]);
  });

  it("refuses an exec into a container the Pod has not, or one that is not running, or a command it has no record of", async () => {
    const { fake, api } = await replay("run-with-files");
    const staged = specFor({ image: "agentcage-agent:1", user: "10002:10002", staging: { runtimeDir: "/srv/agentcage" } }, seeded(9), 0);
    const pod = renderPodManifest(staged, { ...OPTIONS, files: { inputs: true, keep: "out", holderSeconds: 60 } }).pod;
    expect((await post(fake, "/api/v1/namespaces/agents/pods", pod)).status).toBe(201);
    const sink = () => new PassThrough();
    for (const [container, command] of [
      ["sidecar", ["tar", "-c", "-f", "-", "-C", "/", "out"]],
      ["agent", ["tar", "-c", "-f", "-", "-C", "/", "out"]],
      ["holder", ["tar", "-c", "-f", "-", "-C", "/", "etc"]],
      ["holder", ["sh", "-c", "cat /out/*"]],
    ] as const) {
      await expect(api.exec("agents", "agentcage-0000000000000001", container, command, sink(), sink()), `${container} ${command.join(" ")}`).rejects.toThrow();
    }
    const archive = new PassThrough();
    const chunks: Buffer[] = [];
    archive.on("data", (chunk: Buffer) => chunks.push(chunk));
    const session = await api.exec("agents", "agentcage-0000000000000001", "holder", ["tar", "-c", "-f", "-", "-C", "/", "out"], archive, sink());
    expect(session.protocol).toBe("v5.channel.k8s.io");
    expect(await session.status).toEqual({ ok: true });
    expect(Buffer.concat(chunks).subarray(0, 4).toString()).toBe("out/");
  });
});
