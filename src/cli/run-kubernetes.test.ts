// `agentcage run --kubernetes NAMESPACE`, asked in this process against a recorded exchange of the
// Kubernetes API (the kubeconfig from KUBECONFIG, as client-node reads it): the Run's input reaches
// the Pod, its out/ comes back in --out, and what a Pod cannot honour is a usage error saying what to do.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { exchange, type FakeKubeApi, startFakeKubeApi } from "../../test/support/fake-kube-api.js";
import { type ClusterWithProxy, clusterWithProxy } from "../../test/support/kube-proxy.js";
import { type Asked, askProgram } from "../../test/support/program.js";

const KEY = "sk-ant-made-up-kubernetes-run-0123456789";
const root = mkdtempSync(join(tmpdir(), "agentcage-run-kube-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fake: FakeKubeApi | undefined;
let cluster: ClusterWithProxy | undefined;
afterEach(async () => {
  await (cluster === undefined ? fake?.close() : cluster.close());
  fake = undefined;
  cluster = undefined;
});

async function run(...words: string[]): Promise<Asked> {
  const kubeconfig: Record<string, string> = {};
  if (fake !== undefined) {
    kubeconfig["KUBECONFIG"] = join(root, "kubeconfig");
    writeFileSync(kubeconfig["KUBECONFIG"], fake.kubeconfig, { mode: 0o600 });
  }
  return askProgram(
    ["run", "claude", "What is the answer?", ...words],
    { ANTHROPIC_API_KEY: KEY, AGENTCAGE_RUNTIME_DIR: join(root, "runtime") },
    { ANTHROPIC_API_KEY: KEY, ...kubeconfig },
  );
}

describe("agentcage run --kubernetes", () => {
  it("runs the Run as a Pod: --in reaches it, its out/ comes back in --out, and nothing is left", async () => {
    fake = await startFakeKubeApi(exchange("run-with-files"));
    const input = join(root, "in");
    mkdirSync(input, { recursive: true });
    writeFileSync(join(input, "question.txt"), "six times seven\n");
    const out = join(root, "answer");
    const done = await run("--kubernetes", "agents", "--in", input, "--out", out);
    expect(done.thrown).toBeUndefined();
    expect(done.code).toBe(0);
    expect(readFileSync(join(out, "answer.txt"), "utf8")).toBe("42\n");
    expect(fake.inputs().get("question.txt")).toBe("six times seven\n");
    expect(fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/pods"))?.path).toBe("/api/v1/namespaces/agents/pods");
    expect(fake.objects()).toEqual([]);
    expect(`${done.stdout}${done.stderr}`).not.toContain(KEY);
  });

  it("runs under --network-policy model with the stand-in behind the egress proxy it starts in the cluster, and removes that proxy after", async () => {
    cluster = await clusterWithProxy("run-completes");
    fake = cluster.fake;
    const done = await run("--kubernetes", "agents", "--network-policy", "model", "--stand-in", "--json");
    expect(done.thrown).toBeUndefined();
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, reason: "completed", network: { policy: "model" } });
    const made = fake.requests
      .filter((r) => r.method === "POST")
      .map((r) => `${(r.body as { kind: string }).kind} ${(r.body as { metadata: { name: string } }).metadata.name}`);
    // The proxy first (fenced before its Pod), with the stand-in behind it; then the Run's Pod, fenced to it.
    expect(made.slice(0, 4).map((m) => m.split(" ")[0])).toEqual(["Secret", "NetworkPolicy", "Service", "Pod"]);
    expect(made.slice(0, 4).every((m) => m.includes("agentcage-egress-"))).toBe(true);
    const proxyPod = fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/pods"))?.body as {
      spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> };
    };
    expect(proxyPod.spec.containers[0]?.env).toContainEqual({ name: "AGENTCAGE_STAND_IN", value: "1" });
    expect(fake.objects()).toEqual([]);
    expect(`${done.stdout}${done.stderr}`).not.toContain(KEY);
  });

  it.each([
    [
      ["--network-policy", "open"],
      /--network-policy open cannot go with --kubernetes: a Pod reaches only what its NetworkPolicy lets it, the egress proxy .* \(model, allowlist\) or nothing \(none\); use one of those, or run on Docker/,
    ],
    [["--network", "bridge"], /--network \(a Docker network, which a Pod has none of\) cannot go with --kubernetes; leave it out/],
    [["--stand-in"], /--stand-in with --kubernetes needs --network-policy model or allowlist: .* add one, or leave --stand-in out/],
    [["--run-files", "disk"], /--run-files disk .* cannot go with --kubernetes/],
  ])("refuses %j with it, as a usage error saying what to do", async (flags, message) => {
    const done = await run("--kubernetes", "agents", ...flags);
    expect(String((done.thrown as Error | undefined)?.message ?? done.stderr)).toMatch(message);
  });
});
