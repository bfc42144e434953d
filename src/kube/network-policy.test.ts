// Holds a Run's NetworkPolicy to its one rule: no ingress; egress nothing under `none`, and only the
// egress proxy's Pods on its one port under `model` and `allowlist`; never an empty selector.
import { describe, expect, it } from "vitest";
import { manySpecs } from "../../test/support/kube-specs.js";
import { KubernetesError, type PodOptions, renderPodManifest } from "./index.js";

const PROXY = { podLabels: { "app.kubernetes.io/name": "agentcage-egress" }, port: 3128 };
const SPECS = manySpecs(7, 50);

describe("a Run's NetworkPolicy", () => {
  it("selects exactly the Run's own Pod, by its run label, and lets nothing in", () => {
    for (const { spec } of SPECS) {
      const { pod, networkPolicy } = renderPodManifest(spec, { outBytes: 1024 * 1024, network: { policy: "none" } });
      expect(networkPolicy.spec?.podSelector).toEqual({ matchLabels: { "agentcage.run": pod.metadata?.labels?.["agentcage.run"] } });
      expect(networkPolicy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
      expect(networkPolicy.spec?.ingress).toEqual([]);
      expect(networkPolicy.metadata).toMatchObject({ name: pod.metadata?.name, namespace: pod.metadata?.namespace });
    }
  });

  it("lets nothing out under none", () => {
    const [{ spec }] = SPECS as [(typeof SPECS)[number]];
    expect(renderPodManifest(spec, { outBytes: 1024, network: { policy: "none" } }).networkPolicy.spec?.egress).toEqual([]);
  });

  it.each(["model", "allowlist"] as const)("lets out only to the egress proxy's Pods on its port under %s", (policy) => {
    const [{ spec }] = SPECS as [(typeof SPECS)[number]];
    const egress = renderPodManifest(spec, { outBytes: 1024, network: { policy, proxy: PROXY } }).networkPolicy.spec?.egress;
    expect(egress).toEqual([{ to: [{ podSelector: { matchLabels: PROXY.podLabels } }], ports: [{ protocol: "TCP", port: 3128 }] }]);
    const across = renderPodManifest(spec, {
      outBytes: 1024,
      network: { policy, proxy: { ...PROXY, namespaceLabels: { "kubernetes.io/metadata.name": "agentcage-system" } } },
    }).networkPolicy.spec?.egress;
    expect(across?.[0]?.to).toEqual([
      { podSelector: { matchLabels: PROXY.podLabels }, namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "agentcage-system" } } },
    ]);
  });

  it.each([
    [{ ...PROXY, podLabels: {} }, /proxy.podLabels is empty, which would select every Pod/],
    [{ ...PROXY, namespaceLabels: {} }, /proxy.namespaceLabels is empty/],
    [{ ...PROXY, port: 0 }, /proxy.port 0 is not a TCP port/],
    [{ ...PROXY, port: 70_000 }, /proxy.port 70000 is not a TCP port/],
    [{ ...PROXY, podLabels: { app: "bad value" } }, /label app="bad value" has a value Kubernetes does not take/],
  ])("refuses a proxy that is not one door: %j", (proxy, message) => {
    const [{ spec }] = SPECS as [(typeof SPECS)[number]];
    const options: PodOptions = { outBytes: 1024, network: { policy: "model", proxy } };
    expect(() => renderPodManifest(spec, options)).toThrow(KubernetesError);
    expect(() => renderPodManifest(spec, options)).toThrow(message);
  });
});
