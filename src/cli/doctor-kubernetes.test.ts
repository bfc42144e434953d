// `agentcage doctor --kubernetes NAMESPACE` against the fake Kubernetes API: the cluster's line says
// whether its API server answers and its namespace enforces restricted, with the fix beside a failure.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { exchange, type FakeKubeApi, type FakeOptions, startFakeKubeApi } from "../../test/support/fake-kube-api.js";
import { type Asked, askProgram } from "../../test/support/program.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-doctor-kube-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fake: FakeKubeApi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function doctorOn(options: FakeOptions, namespace = "agents"): Promise<{ asked: Asked; cluster: Record<string, unknown> | undefined }> {
  fake = await startFakeKubeApi(exchange("run-completes"), options);
  const kubeconfig = join(root, "kubeconfig");
  writeFileSync(kubeconfig, fake.kubeconfig, { mode: 0o600 });
  const asked = await askProgram(
    ["doctor", "--json", "--kubernetes", namespace, "--runtime-dir", join(root, "rt")],
    { ANTHROPIC_API_KEY: "sk-ant-made-up-doctor-kube-0123456789" },
    { KUBECONFIG: kubeconfig },
  );
  const checks = JSON.parse(asked.stdout) as Array<Record<string, unknown>>;
  return { asked, cluster: checks.find((c) => c["check"] === "cluster") };
}

describe("agentcage doctor --kubernetes", () => {
  it("says the API server answers and the namespace enforces restricted, and skips what only an engine answers", async () => {
    const { asked, cluster } = await doctorOn({});
    expect(cluster).toMatchObject({
      status: "ok",
      detail: expect.stringMatching(/answers; namespace "agents" enforces the restricted Pod Security standard$/),
    });
    expect(asked.stdout).toContain('"check": "image"');
    expect(JSON.parse(asked.stdout).find((c: { check: string }) => c.check === "image").status).toBe("skip");
    expect(asked.code).toBe(0);
  });

  it("fails a namespace with another Pod Security level, with the kubectl label command as its fix", async () => {
    const { asked, cluster } = await doctorOn({ namespaces: { agents: { "pod-security.kubernetes.io/enforce": "baseline" } } });
    expect(cluster).toMatchObject({
      status: "fail",
      detail:
        'namespace "agents" has pod-security.kubernetes.io/enforce="baseline" as its Pod Security label, so the cluster would not refuse a Pod that lost a security field',
      fix: "run `kubectl label namespace agents pod-security.kubernetes.io/enforce=restricted`",
    });
    expect(asked.code).toBe(1);
  });

  it("fails a namespace that is not there, saying how to make it", async () => {
    const { cluster } = await doctorOn({}, "elsewhere");
    expect(cluster).toMatchObject({ status: "fail", fix: expect.stringContaining("kubectl create namespace elsewhere") });
  });
});
