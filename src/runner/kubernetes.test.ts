// A Run through the runner's ordinary entry on Kubernetes, against a recorded exchange of the API's
// wire format (test/support/fake-kube-api.ts over a real socket, client-node speaking to it): the
// same claude adapter and Outcome as on Docker; its inputs unpacked in the Pod before the agent
// starts, its out/ read back under the Harvest's rules (a link or an oversize file refused for the
// reason the Docker path gives), a cancel that removes the Pod, an unschedulable Pod `unavailable`
// naming why, and nothing left for a sweep to find. Nothing here has run against a live cluster.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { exchange, type FakeKubeApi, type FakeOptions, startFakeKubeApi } from "../../test/support/fake-kube-api.js";
import { createKubeApi } from "../kube/index.js";
import { createAgentRunner } from "./runner.js";
import type { AgentRunnerOptions } from "./runner-options.js";

const KEY = "sk-ant-api03-kubernetes-runner-test-key";
/** The fixtures' Pod is agentcage-0000000000000001. */
const RUN_ID = "0000000000000001";
const silent = pino({ level: "silent" });

let fake: FakeKubeApi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** The start bound of the unschedulable Runs: long enough for a busy machine's fake to announce a Pod, short for a test. */
const START_TIMEOUT_MS = 1500;

async function runnerOn(name: string, options: FakeOptions = {}, runner: Partial<AgentRunnerOptions> = {}, staged = true, startTimeoutMs = 30_000) {
  fake = await startFakeKubeApi(exchange(name), options);
  const runtimeDir = await mkdtemp(join(tmpdir(), "agentcage-kube-"));
  const made = createAgentRunner({
    image: "agentcage-agent:1",
    logger: silent,
    environment: { ANTHROPIC_API_KEY: KEY },
    ...(staged ? { staging: { runtimeDir, writableBytes: 1024 * 1024 } } : {}),
    kubernetes: { api: await createKubeApi({ kubeconfig: fake.kubeconfig }), namespace: "agents", startTimeoutMs },
    ...runner,
  });
  return { fake, runner: made, harvestTo: join(await mkdtemp(join(tmpdir(), "agentcage-kube-harvest-")), "out") };
}

const calls = (f: FakeKubeApi) => f.requests.filter((r) => r.query.get("watch") !== "true").map((r) => `${r.method} ${r.path}`);

describe("a claude Run on Kubernetes, through the runner", () => {
  it("puts its input file in the Pod before the agent starts, reads claude's answer, and harvests out/answer.txt", async () => {
    const { fake, runner, harvestTo } = await runnerOn("run-with-files");
    const outcome = await runner.run({ cli: "claude" }, "What is the answer?", {
      runId: RUN_ID,
      inputs: { files: { "question.txt": "six times seven\n" } },
      harvestTo,
    });
    expect(outcome).toMatchObject({ runId: RUN_ID, ok: true, reason: "completed", cli: "claude", exit: { code: 0, oomKilled: false } });
    expect(outcome.harvest).toMatchObject({ ok: true, files: 1 });
    expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
    // The inputs container got work/ as staging made it: the file, and out/ (the agent's mount point of its own emptyDir).
    expect(fake.inputs().get("question.txt")).toBe("six times seven\n");
    expect([...fake.inputs().keys()]).toContain("out/");
    expect(fake.stdin().bytes.toString("utf8")).toContain("What is the answer?");
    const upgrades = fake.requests.filter((r) => /\/(attach|exec)$/.test(r.path));
    expect(upgrades.map((r) => [r.path.split("/").at(-1), r.query.get("container")])).toEqual([
      ["attach", "inputs"],
      ["attach", "agent"],
      ["exec", "holder"],
    ]);
    expect(upgrades[2]?.query.getAll("command")).toEqual(["tar", "-c", "-f", "-", "-C", "/", "out"]);
    // The Pod asked for is locked down in all three of its containers, and no secret value is in it.
    const pod = fake.requests.find((r) => r.method === "POST" && r.path.endsWith("/pods"))?.body as { spec: Record<string, unknown[]> };
    const containers = [...(pod.spec["initContainers"] ?? []), ...(pod.spec["containers"] ?? [])] as Array<{ name: string; securityContext: unknown }>;
    expect(containers.map((c) => c.name)).toEqual(["inputs", "agent", "holder"]);
    for (const c of containers)
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
    expect(JSON.stringify(pod)).not.toContain(KEY);
    expect(fake.objects()).toEqual([]);
    expect(await runner.sweep()).toMatchObject({ removed: [] });
  });

  it.each([
    [
      "a symbolic link out",
      [
        { name: "answer.txt", content: "42\n" },
        { name: "passwd", type: "symlink", linkname: "/etc/passwd" },
      ],
      "symlink",
    ],
    ["a file too large", [{ name: "big.bin", size: 1536 * 1024 }], "file_too_large"],
  ] as const)("refuses %s in out/ as the Harvest does on Docker, nothing in the destination, nothing left", async (_, entries, reason) => {
    const { fake, runner, harvestTo } = await runnerOn("run-with-files", { holderEntries: entries });
    const outcome = await runner.run({ cli: "claude" }, "What is the answer?", { runId: RUN_ID, harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason } } });
    expect(existsSync(harvestTo) ? readdirSync(harvestTo) : []).toEqual([]);
    expect(fake.objects()).toEqual([]);
  });

  it("refuses out/ whose tar in the holder failed, as an io_error naming it, rather than harvest part of it", async () => {
    const failed = {
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: error executing command [tar -c -f - -C / out], exit code 2",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "2" }] },
    };
    const { runner, harvestTo } = await runnerOn("run-with-files", { execStatus: failed });
    const outcome = await runner.run({ cli: "claude" }, "What is the answer?", { runId: RUN_ID, harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "io_error" } } });
    expect(outcome.error).toMatch(/out\/ could not be read back whole: tar in the holder failed: command terminated with non-zero exit code.*\(exit code 2\)/);
    expect(existsSync(harvestTo) ? readdirSync(harvestTo) : []).toEqual([]);
  });
});

describe("a Run on Kubernetes that does not go to its end", () => {
  it("is cancelled by its signal while it waits to be scheduled, and its Pod, NetworkPolicy and Secret are deleted", async () => {
    const { fake, runner } = await runnerOn("unschedulable");
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = Date.now();
      controller.abort();
    }, 150);
    const outcome = await runner.run({ cli: "claude" }, "hi", { runId: RUN_ID, signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, reason: "cancelled" });
    // At once, not at the start bound (30 s here): about 0.1 s on an idle machine.
    expect(Date.now() - abortedAt).toBeLessThan(5000);
    expect(calls(fake).filter((c) => c.startsWith("DELETE"))).toEqual([
      "DELETE /api/v1/namespaces/agents/pods/agentcage-0000000000000001",
      "DELETE /apis/networking.k8s.io/v1/namespaces/agents/networkpolicies/agentcage-0000000000000001",
      "DELETE /api/v1/namespaces/agents/secrets/agentcage-0000000000000001-env",
    ]);
    expect(fake.objects()).toEqual([]);
  });

  it("ends timeout at the Run's own timer while its Pod waits, and deletes the Pod", async () => {
    const { fake, runner } = await runnerOn("unschedulable");
    const outcome = await runner.run({ cli: "claude", timeoutSeconds: 1 }, "hi", { runId: RUN_ID });
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(fake.objects()).toEqual([]);
  });

  it("ends unavailable at the start bound when its Pod cannot be scheduled, naming Unschedulable and why", async () => {
    const { fake, runner } = await runnerOn("unschedulable", {}, {}, true, START_TIMEOUT_MS);
    const outcome = await runner.run({ cli: "claude" }, "hi", { runId: RUN_ID });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toMatch(
      /the Run's Pod could not run \(Unschedulable\): the Pod did not start within 1500 ms \(Unschedulable: 0\/3 nodes are available/,
    );
    expect(fake.objects()).toEqual([]);
    expect(await runner.sweep()).toMatchObject({ removed: [] });
  });

  it("reports an OOM kill as the Outcome's oom, with the kubelet's exit status", async () => {
    const { runner } = await runnerOn("oom-killed", {}, {}, false);
    const outcome = await runner.run({ cli: "claude" }, "hi", { runId: RUN_ID });
    expect(outcome).toMatchObject({ ok: false, reason: "oom", exit: { code: 137, signal: "SIGKILL", oomKilled: true } });
  });
});

describe("what kubernetes cannot go with", () => {
  it("refuses networkPolicy model without the proxy in the cluster, and open, naming the option and saying what to do", async () => {
    const api = await createKubeApi({
      kubeconfig: JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:1" } }],
        users: [{ name: "u", user: {} }],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        "current-context": "x",
      }),
    });
    expect(() =>
      createAgentRunner({
        image: "a:1",
        logger: silent,
        kubernetes: { api },
        networkPolicy: "model",
        egress: { register: () => undefined, container: "proxy" } as never,
      }),
    ).toThrow(
      /networkPolicy "model" on kubernetes needs egress: the egress proxy in the cluster, .* pass egress: await startKubeEgressGateway\(\{ api, namespace \}\)/,
    );
    expect(() => createAgentRunner({ image: "a:1", logger: silent, kubernetes: { api }, networkPolicy: "open" })).toThrow(
      /networkPolicy "open" cannot go with kubernetes: .*the egress proxy in the cluster .* or nothing \("none"\)/,
    );
    expect(() => createAgentRunner({ image: "a:1", logger: silent, kubernetes: { api }, runFiles: "disk" })).toThrow(
      /runFiles "disk" cannot go with kubernetes/,
    );
    expect(() => createAgentRunner({ image: "a:1", logger: silent, kubernetes: { api: {} as never } })).toThrow(
      /kubernetes.api is not a KubeApi \(it has no createSecret\)/,
    );
  });
});
