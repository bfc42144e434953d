// `agentcage run --kubernetes NAMESPACE`, asked in this process against a recorded exchange of the
// Kubernetes API (the kubeconfig from KUBECONFIG, as client-node reads it): the Run's input reaches
// the Pod, its out/ comes back in --out, and what a Pod cannot honour is a usage error saying what to do.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { exchange, type FakeKubeApi, startFakeKubeApi } from "../../test/support/fake-kube-api.js";
import { type Asked, askProgram } from "../../test/support/program.js";

const KEY = "sk-ant-made-up-kubernetes-run-0123456789";
const root = mkdtempSync(join(tmpdir(), "agentcage-run-kube-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fake: FakeKubeApi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
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

  it.each([
    [
      ["--network-policy", "model"],
      /--network-policy model cannot go with --kubernetes yet: it needs an egress proxy .* leave --network-policy out .* or run on Docker/,
    ],
    [["--network", "bridge"], /--network \(a Docker network, which a Pod has none of\) cannot go with --kubernetes; leave it out/],
    [["--stand-in"], /--stand-in .* cannot go with --kubernetes/],
    [["--run-files", "disk"], /--run-files disk .* cannot go with --kubernetes/],
  ])("refuses %j with it, as a usage error saying what to do", async (flags, message) => {
    const done = await run("--kubernetes", "agents", ...flags);
    expect(String((done.thrown as Error | undefined)?.message ?? done.stderr)).toMatch(message);
  });
});
