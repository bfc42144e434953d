// `agentcage plan --kubernetes`, asked in this process: it prints the Pod and NetworkPolicy of the
// same Run as a JSON List (never the credential's value), and refuses what a Pod cannot honour.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Asked, askProgram } from "../../test/support/program.js";

const KEY = "sk-ant-made-up-kubernetes-plan-0123456789";
const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-plan-pod-"));
afterAll(() => rmSync(runtimeDir, { recursive: true, force: true }));

/** The runner reads credentials from this process's environment too. */
const plan = (...words: string[]): Promise<Asked> =>
  askProgram(
    ["plan", "claude", "Say hi", "--runtime-dir", runtimeDir, ...words],
    { ANTHROPIC_API_KEY: KEY, AGENTCAGE_RUNTIME_DIR: runtimeDir },
    { ANTHROPIC_API_KEY: KEY },
  );

describe("agentcage plan --kubernetes", () => {
  it("prints the Run's NetworkPolicy and Pod as one List, the credential a key of the Run's Secret", async () => {
    const done = await plan("--kubernetes", "--namespace", "agents", "--runtime-class", "gvisor");
    expect(done.stderr).toContain("kubectl apply --dry-run=server -f -");
    expect(done.code).toBe(0);
    const list = JSON.parse(done.stdout);
    expect(list).toMatchObject({ apiVersion: "v1", kind: "List" });
    const [policy, pod] = list.items;
    expect(policy).toMatchObject({ kind: "NetworkPolicy", metadata: { namespace: "agents" }, spec: { ingress: [], egress: [] } });
    expect(pod).toMatchObject({
      kind: "Pod",
      metadata: { namespace: "agents", labels: { "agentcage.owner": "agentcage" } },
      spec: { restartPolicy: "Never", runtimeClassName: "gvisor", automountServiceAccountToken: false },
    });
    expect(pod.metadata.name).toBe(`agentcage-${pod.metadata.labels["agentcage.run"]}`);
    const env = pod.spec.containers[0].env as Array<{ name: string; valueFrom?: { secretKeyRef: { name: string } } }>;
    expect(env.find((e) => e.name === "ANTHROPIC_API_KEY")?.valueFrom?.secretKeyRef.name).toBe(`${pod.metadata.name}-env`);
    expect(pod.spec.containers[0].args).toContain("claude");
    expect(done.stdout + done.stderr).not.toContain(KEY);
  });

  it("refuses a Docker network, a stand-in, and --namespace without --kubernetes, as a usage error", async () => {
    for (const [words, message] of [
      [["--kubernetes", "--network", "bridge"], /--network names a Docker network/],
      [["--kubernetes", "--stand-in"], /--stand-in starts the stand-in model/],
      [["--namespace", "agents"], /--namespace "agents" is for a Pod; add --kubernetes/],
    ] as const) {
      const { thrown } = await plan(...words);
      expect(thrown).toMatchObject({ code: "invalid_usage", message: expect.stringMatching(message) });
    }
  });

  it("refuses what a Pod cannot honour, naming it, with the usage status", async () => {
    const done = await plan("--kubernetes", "--namespace", "Not_A_Name");
    expect(done.stderr).toMatch(/agentcage plan: namespace "Not_A_Name" is not a Kubernetes name/);
    expect(done.code).toBe(2);
    expect(done.stdout).toBe("");
  });

  it("gives a default Run's Pod a CPU limit as well as memory, requests equal to them", async () => {
    const done = await plan("--kubernetes");
    expect(done.code, done.stderr).toBe(0);
    const [, pod] = JSON.parse(done.stdout).items;
    const { limits, requests } = pod.spec.containers[0].resources;
    expect(limits).toEqual({ memory: expect.stringMatching(/^\d+$/), cpu: "2000m" });
    expect(requests).toEqual(limits);
  });

  it("shows the helper containers a Run's Pod has: inputs before the agent, and the holder of what it writes", async () => {
    const inputs = join(runtimeDir, "in");
    mkdirSync(inputs, { recursive: true });
    const writable = JSON.parse((await plan("--kubernetes", "--in", inputs, "--writable")).stdout).items[1];
    expect(writable.spec.initContainers.map((c: { name: string }) => c.name)).toEqual(["inputs"]);
    expect(writable.spec.containers.map((c: { name: string }) => c.name)).toEqual(["agent", "holder"]);
    const holder = writable.spec.containers[1];
    expect(holder.volumeMounts.map((m: { name: string }) => m.name)).toEqual(["work"]);
    expect(holder.resources.limits.cpu).toBe("100m");
    const readOnly = JSON.parse((await plan("--kubernetes")).stdout).items[1];
    expect(readOnly.spec.containers[1].volumeMounts.map((m: { name: string }) => m.name)).toEqual(["out"]);
  });

  it("prints the Run's NetworkPolicy and Pod under --network-policy model, the proxy's address a marked placeholder", async () => {
    const done = await plan("--kubernetes", "--network-policy", "model");
    expect(done.code, done.stderr).toBe(0);
    const [policy, pod] = JSON.parse(done.stdout).items;
    expect(policy.spec.egress).toEqual([
      {
        to: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "agentcage-egress", "app.kubernetes.io/instance": "EGRESS-PROXY-NAME" } } }],
        ports: [{ protocol: "TCP", port: 8751 }],
      },
    ]);
    const env = pod.spec.containers[0].env as Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { key: string } } }>;
    expect(env.find((e) => e.name === "ANTHROPIC_BASE_URL")?.value).toBe("http://EGRESS_PROXY_CLUSTER_IP:8751");
    // The agent holds the Run's token in its key's variable, from the Run's Secret; never the key.
    expect(env.find((e) => e.name === "ANTHROPIC_API_KEY")?.valueFrom?.secretKeyRef.key).toBe("ANTHROPIC_API_KEY");
    expect(done.stdout + done.stderr).not.toContain(KEY);
    expect(done.stderr).toContain("# EGRESS_PROXY_CLUSTER_IP stands for the egress proxy's Service address (its ClusterIP)");
  });

  it("refuses, without --kubernetes, a policy that makes a network, in the words of docker run", async () => {
    for (const [policy, message] of [
      ["model", "--network-policy model makes a network for the Run and starts the egress proxy, which plan does not; plan prints the one docker run"],
      ["open", "--network-policy open makes a network for the Run, which plan does not; plan prints the one docker run"],
    ] as const) {
      const { thrown } = await plan("--network-policy", policy);
      expect(thrown).toMatchObject({ code: "invalid_usage", message: expect.stringContaining(message) });
    }
  });

  it("refuses allowlist in the words of a Pod, not of docker run", async () => {
    const done = await plan("--kubernetes", "--network-policy", "allowlist", "--allow", "api.example.com:443");
    expect(String(done.thrown ?? done.stderr)).toContain("plan --kubernetes prints the Pod of a Run under none or model");
  });
});
