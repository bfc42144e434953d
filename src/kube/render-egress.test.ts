// The in-cluster egress proxy's objects, held to their invariants field by field: locked down as a
// Run's Pod, its control socket on a memory emptyDir and never a port, its secret a Secret's file,
// reached only by Runs' Pods on the agents' port, and a Run's NetworkPolicy naming exactly it.
import { describe, expect, it } from "vitest";
import { seeded, specFor } from "../../test/support/kube-specs.js";
import { OWNER_LABEL, RUN_LABEL } from "../container/index.js";
import { PROXY_POD_FIELDS, SERVICE_FIELDS, unknownFields } from "./known-fields.js";
import { KubernetesError } from "./kube-error.js";
import { CONTROL_SECRET_KEY, controlSecret, egressPeer, egressProxyJson, renderEgressProxy, type EgressProxyPodOptions } from "./render-egress.js";
import { renderNetworkPolicy } from "./render-network-policy.js";
import { validatedEgressProxy } from "./validate.js";

const OPTIONS: EgressProxyPodOptions = {
  name: "agentcage-egress-0123456789abcdef",
  namespace: "agents",
  image: "agentcage-orchestrator:1",
  command: ["/usr/local/bin/agentcage-egress"],
  env: { AGENTCAGE_EGRESS_PORT: "8751", AGENTCAGE_EGRESS_CONTROL_SOCKET: "/run/agentcage/egress.sock" },
  user: "10002:10002",
  port: 8751,
  controlDir: "/run/agentcage",
  secretDir: "/run/agentcage-secret",
  labels: { "agentcage.session": "s1" },
  memoryBytes: 512 * 1024 * 1024,
  tmpBytes: 16 * 1024 * 1024,
};

describe("the in-cluster egress proxy's objects", () => {
  it("lock its Pod down as a Run's: non-root, nothing added, read-only root, no token, no host namespace", () => {
    const { pod } = renderEgressProxy(OPTIONS);
    expect(pod.spec).toMatchObject({
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      // fsGroup makes the Secret's file its group's, which defaultMode 0440 lets it read; nothing else of the Pod changes.
      securityContext: { runAsUser: 10002, runAsGroup: 10002, runAsNonRoot: true, fsGroup: 10002, seccompProfile: { type: "RuntimeDefault" } },
    });
    const [container] = pod.spec?.containers ?? [];
    expect(pod.spec?.containers).toHaveLength(1);
    expect(container?.securityContext).toEqual({
      runAsUser: 10002,
      runAsGroup: 10002,
      runAsNonRoot: true,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container?.resources).toEqual({ limits: { memory: String(512 * 1024 * 1024) }, requests: { memory: String(512 * 1024 * 1024) } });
    expect(() => renderEgressProxy({ ...OPTIONS, user: "0:0" })).toThrow(/uid 0/);
  });

  it("keep the control socket on a memory emptyDir and its secret in a Secret's file; the one port is the agents'", () => {
    const { pod, service } = renderEgressProxy(OPTIONS);
    const [container] = pod.spec?.containers ?? [];
    expect(container?.ports).toEqual([{ name: "agents", containerPort: 8751, protocol: "TCP" }]);
    expect(service.spec?.ports).toEqual([{ name: "agents", protocol: "TCP", port: 8751, targetPort: 8751 }]);
    const volumes = Object.fromEntries((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
    const mounts = Object.fromEntries((container?.volumeMounts ?? []).map((m) => [m.mountPath, m]));
    expect(volumes["control"]).toEqual({ name: "control", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } });
    expect(mounts["/run/agentcage"]).toEqual({ name: "control", mountPath: "/run/agentcage", readOnly: false });
    expect(volumes["control-secret"]?.secret).toEqual({
      secretName: "agentcage-egress-0123456789abcdef-control",
      defaultMode: 0o440,
      items: [{ key: CONTROL_SECRET_KEY, path: CONTROL_SECRET_KEY }],
    });
    expect(mounts["/run/agentcage-secret"]?.readOnly).toBe(true);
    // No hostPath, nothing of a node: every volume is an emptyDir or the Secret.
    expect((pod.spec?.volumes ?? []).every((v) => v.emptyDir !== undefined || v.secret !== undefined)).toBe(true);
  });

  it("admit only Runs' Pods, on the agents' port; the Service selects this proxy alone", () => {
    const { pod, service, networkPolicy } = renderEgressProxy(OPTIONS);
    const selector = egressPeer(OPTIONS).podLabels;
    expect(service.spec?.selector).toEqual(selector);
    expect(networkPolicy.spec?.podSelector).toEqual({ matchLabels: selector });
    expect(pod.metadata?.labels).toMatchObject({ ...selector, [OWNER_LABEL]: "agentcage-egress", "agentcage.session": "s1" });
    expect(networkPolicy.spec?.policyTypes).toEqual(["Ingress"]);
    expect(networkPolicy.spec?.ingress).toEqual([
      { from: [{ podSelector: { matchExpressions: [{ key: RUN_LABEL, operator: "Exists" }] } }], ports: [{ protocol: "TCP", port: 8751 }] },
    ]);
  });

  it("are what a Run's NetworkPolicy names as its one door", () => {
    const spec = specFor({ image: "a:1", user: "10002:10002" }, seeded(7), 0);
    const runPolicy = renderNetworkPolicy(spec, { outBytes: 1024, network: { policy: "model", proxy: egressPeer(OPTIONS) } });
    const { pod } = renderEgressProxy(OPTIONS);
    const door = runPolicy.spec?.egress?.[0];
    expect(door?.ports).toEqual([{ protocol: "TCP", port: 8751 }]);
    // The Run's selector matches the proxy's Pod, and would match no other proxy's.
    expect(pod.metadata?.labels).toMatchObject(door?.to?.[0]?.podSelector?.matchLabels ?? { none: "x" });
    expect(renderEgressProxy({ ...OPTIONS, name: "agentcage-egress-other" }).pod.metadata?.labels).not.toMatchObject(
      door?.to?.[0]?.podSelector?.matchLabels ?? {},
    );
  });

  it("hold no secret: the printed List has no Secret, and the control Secret holds only its one key", () => {
    const printed = egressProxyJson(renderEgressProxy(OPTIONS));
    expect((JSON.parse(printed) as { items: Array<{ kind: string }> }).items.map((item) => item.kind)).toEqual(["NetworkPolicy", "Service", "Pod"]);
    expect(printed).not.toContain("s3cret-value");
    const secret = controlSecret(OPTIONS, "s3cret-value-of-at-least-32-chars-xx");
    expect(secret).toMatchObject({ kind: "Secret", immutable: true, stringData: { [CONTROL_SECRET_KEY]: "s3cret-value-of-at-least-32-chars-xx" } });
    expect(Object.keys(secret.stringData ?? {})).toEqual([CONTROL_SECRET_KEY]);
    expect(JSON.stringify(renderEgressProxy(OPTIONS))).not.toContain("s3cret");
  });

  it("refuse a field outside the exact list, and options Kubernetes would not take, naming them", () => {
    const manifest = renderEgressProxy(OPTIONS);
    const withHostPath = {
      ...manifest.pod,
      spec: { ...manifest.pod.spec, volumes: [...(manifest.pod.spec?.volumes ?? []), { name: "root", hostPath: { path: "/" } }] },
    };
    expect(unknownFields(withHostPath, PROXY_POD_FIELDS)).toEqual(["spec.volumes.3.hostPath"]);
    expect(() => validatedEgressProxy({ ...manifest, pod: withHostPath as typeof manifest.pod })).toThrow(/egress proxy's Pod holds field\(s\)/);
    const nodePort = { ...manifest.service, spec: { ...manifest.service.spec, externalIPs: ["1.2.3.4"] } };
    expect(unknownFields(nodePort, SERVICE_FIELDS)).toEqual(["spec.externalIPs"]);
    expect(() => renderEgressProxy({ ...OPTIONS, name: "Not_A_Label" })).toThrow(KubernetesError);
    expect(() => renderEgressProxy({ ...OPTIONS, name: "Not_A_Label" })).toThrow(/"Not_A_Label" is not a DNS label/);
    expect(() => renderEgressProxy({ ...OPTIONS, port: 70_000 })).toThrow(/port 70000 is not a TCP port/);
    expect(() => renderEgressProxy({ ...OPTIONS, namespace: "Agents" })).toThrow(/namespace "Agents"/);
  });
});
