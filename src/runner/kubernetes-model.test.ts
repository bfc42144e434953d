// A claude Run under networkPolicy "model" on Kubernetes, through the runner's ordinary entry: the
// egress proxy runs in the cluster (startKubeEgressGateway; here a real proxy behind the recorded
// exchange's fake API, reached over the bridge's exec), the Run's Pod is fenced to that proxy alone,
// its agent holds a token for the Run (in the Run's Secret) and the proxy's cluster address, never
// the key; the token is bound to the Pod's address before its inputs go in, and dies with the Run.
// Nothing here has run against a live cluster.

import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { FAKE_CLUSTER_IP } from "../../test/support/fake-kube-api.js";
import { type ClusterWithProxy, clusterWithProxy } from "../../test/support/kube-proxy.js";
import { DEFAULT_EGRESS_PORT } from "../egress/index.js";
import { type KubeEgressGateway, startKubeEgressGateway } from "../gateway/index.js";
import { createKubeApi } from "../kube/index.js";
import { createAgentRunner } from "./runner.js";

const KEY = "sk-ant-api03-kubernetes-model-test-key";
/** The fixtures' Pod is agentcage-0000000000000001, at 10.244.1.37. */
const RUN_ID = "0000000000000001";
const silent = pino({ level: "silent" });

let cluster: ClusterWithProxy | undefined;
let gateway: KubeEgressGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await cluster?.close();
  gateway = undefined;
  cluster = undefined;
});

type Sent = { method: string; path: string; body: unknown };

describe('a claude Run under networkPolicy "model" on Kubernetes', () => {
  it("reaches only the proxy in the cluster, with a token bound to its Pod's address, and never holds the key", async () => {
    cluster = await clusterWithProxy("run-with-files");
    const { fake } = cluster;
    const api = await createKubeApi({ kubeconfig: fake.kubeconfig });
    gateway = await startKubeEgressGateway({ api, namespace: "agents", logger: silent });
    const bound: Array<{ runId: string; sources: readonly string[]; inputsIn: number }> = [];
    const proxy = gateway;
    const egress: KubeEgressGateway = {
      ...proxy,
      bind: async (runId, sources) => {
        bound.push({ runId, sources, inputsIn: fake.inputs().size });
        return proxy.bind(runId, sources);
      },
    };
    const runner = createAgentRunner({
      image: "agentcage-agent:1",
      logger: silent,
      environment: { ANTHROPIC_API_KEY: KEY },
      staging: { runtimeDir: await mkdtemp(join(tmpdir(), "agentcage-kube-model-")), writableBytes: 1024 * 1024 },
      kubernetes: { api, namespace: "agents", startTimeoutMs: 30_000 },
      networkPolicy: "model",
      egress,
    });
    const harvestTo = join(await mkdtemp(join(tmpdir(), "agentcage-kube-model-harvest-")), "out");
    const outcome = await runner.run({ cli: "claude" }, "What is the answer?", {
      runId: RUN_ID,
      inputs: { files: { "question.txt": "six times seven\n" } },
      harvestTo,
    });
    expect(outcome, outcome.error).toMatchObject({ runId: RUN_ID, ok: true, reason: "completed", network: { policy: "model" } });

    const sent = fake.requests as Sent[];
    const runPod = sent.find(
      (r) => r.method === "POST" && r.path.endsWith("/pods") && (r.body as { metadata: { name: string } }).metadata.name === `agentcage-${RUN_ID}`,
    )?.body as { spec: { containers: Array<{ name: string; env: Array<{ name: string; value?: string; valueFrom?: unknown }> }> } };
    const env = Object.fromEntries((runPod.spec.containers.find((c) => c.name === "agent")?.env ?? []).map((e) => [e.name, e]));
    // The proxy by its cluster address, in the open; the token only by reference to the Run's Secret.
    expect(env["ANTHROPIC_BASE_URL"]).toEqual({ name: "ANTHROPIC_BASE_URL", value: `http://${FAKE_CLUSTER_IP}:${DEFAULT_EGRESS_PORT}` });
    expect(env["ANTHROPIC_API_KEY"]?.valueFrom).toMatchObject({ secretKeyRef: { name: `agentcage-${RUN_ID}-env`, key: "ANTHROPIC_API_KEY" } });
    const runSecret = sent.find((r) => r.method === "POST" && (r.body as { metadata?: { name?: string } }).metadata?.name === `agentcage-${RUN_ID}-env`)
      ?.body as { stringData: Record<string, string> };
    const token = runSecret.stringData["ANTHROPIC_API_KEY"] as string;
    expect(token).not.toBe(KEY);
    // No object sent to the cluster holds the key: it went to the proxy over the control channel only.
    expect(JSON.stringify(sent.map((r) => r.body))).not.toContain(KEY);

    // Fenced to the proxy's Pods on its one port, and nothing else.
    const policy = sent.find(
      (r) =>
        r.method === "POST" && (r.body as { metadata?: { name?: string } }).metadata?.name === `agentcage-${RUN_ID}` && r.path.endsWith("/networkpolicies"),
    )?.body as { spec: { egress: unknown[]; ingress: unknown[] } };
    expect(policy.spec.ingress).toEqual([]);
    expect(policy.spec.egress).toEqual([
      { to: [{ podSelector: { matchLabels: proxy.peer.podLabels } }], ports: [{ protocol: "TCP", port: DEFAULT_EGRESS_PORT }] },
    ]);

    // The token was bound to the Pod's address (the fixture's 10.244.1.37) before its inputs went in.
    expect(bound).toEqual([{ runId: RUN_ID, sources: ["10.244.1.37/32"], inputsIn: 0 }]);
    expect(fake.inputs().get("question.txt")).toBe("six times seven\n");
    // And it died with the Run.
    const answer = await fetch(`${cluster.proxyUrl()}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "x-api-key": token, "content-type": "application/json" },
      body: "{}",
    });
    expect(answer.status).toBe(401);
    // Only the proxy's objects are left, and the gateway's close removes them.
    const proxyName = proxy.container;
    expect(fake.objects().sort()).toEqual(
      [`networkpolicies/${proxyName}`, `pods/${proxyName}`, `secrets/${proxyName}-control`, `services/${proxyName}`].sort(),
    );
  });
});
