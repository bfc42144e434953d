// One spec, a third rendering: over many specs, the Pod says what the Engine API body says
// on every security-relevant field (user, capabilities, privileges, root filesystem, memory, CPU,
// /tmp, network, stdin, command, env names, labels, runtime, stop grace). Pure: both are values.
import { describe, expect, it } from "vitest";
import { manySpecs } from "../../test/support/kube-specs.js";
import { renderCreateBody } from "../container/index.js";
import { renderPodManifest } from "./index.js";
import { DEFAULT_POD_CPUS } from "./limits.js";

const OPTIONS = { outBytes: 256 * 1024 * 1024, network: { policy: "none" } } as const;

describe("the Engine API body and the Pod of one spec", () => {
  it.each(manySpecs(1, 300).map(({ spec }, index) => [index, spec] as const))("agree on every security-relevant field (spec %i)", (_index, spec) => {
    const body = renderCreateBody(spec);
    const host = body.HostConfig ?? {};
    const { pod, networkPolicy } = renderPodManifest(spec, OPTIONS);
    const podSpec = pod.spec;
    const agent = podSpec?.containers[0];
    const context = agent?.securityContext;

    expect(`${context?.runAsUser}:${context?.runAsGroup}`).toBe(body.User);
    expect(host.CapDrop).toEqual(["ALL"]);
    expect(context?.capabilities).toEqual({ drop: ["ALL"] });
    expect(host.CapAdd).toBeUndefined();
    expect(host.Privileged ?? false).toBe(context?.privileged);
    expect(host.SecurityOpt).toEqual(["no-new-privileges"]);
    expect(context?.allowPrivilegeEscalation).toBe(false);
    expect(host.ReadonlyRootfs).toBe(context?.readOnlyRootFilesystem);
    expect(String(host.Memory)).toBe(agent?.resources?.limits?.memory);
    expect(host.MemorySwap).toBe(host.Memory);
    // A spec with no CPU limit has none on the engine; its Pod gets DEFAULT_POD_CPUS, never the cluster's default.
    expect(`${(host.NanoCpus ?? DEFAULT_POD_CPUS * 1e9) / 1e6}m`).toBe(agent?.resources?.limits?.cpu);
    expect(host.Tmpfs?.["/tmp"]).toContain(`,size=${podSpec?.volumes?.find((v) => v.name === "tmp")?.emptyDir?.sizeLimit},`);
    // No network at all: the engine's "none", and a NetworkPolicy that lets nothing in or out.
    expect(host.NetworkMode).toBe("none");
    expect(networkPolicy.spec).toMatchObject({ policyTypes: ["Ingress", "Egress"], ingress: [], egress: [] });
    expect({ stdin: body.OpenStdin, once: body.StdinOnce, tty: body.Tty }).toEqual({ stdin: agent?.stdin, once: agent?.stdinOnce, tty: agent?.tty });
    expect(agent?.command).toEqual(body.Entrypoint);
    expect(agent?.args).toEqual(body.Cmd);
    expect(agent?.workingDir).toBe(body.WorkingDir);
    expect(agent?.image).toBe(body.Image);
    expect(agent?.env?.map((e) => e.name)).toEqual(body.Env?.map((e) => e.slice(0, e.indexOf("="))));
    expect(pod.metadata?.labels).toEqual(body.Labels);
    expect(podSpec?.runtimeClassName).toBe(host.Runtime);
    expect(podSpec?.terminationGracePeriodSeconds).toBe(body.StopTimeout);
    expect(podSpec?.hostname).toBe(body.Hostname);
    expect((podSpec?.hostAliases ?? []).flatMap((a) => a.hostnames?.map((h) => `${h}:${a.ip}`) ?? []).sort()).toEqual([...(host.ExtraHosts ?? [])].sort());
    expect(podSpec?.dnsConfig?.nameservers).toEqual(host.Dns);
    // The Run's workspace: the same places, read-only where the binds are.
    expect(agent?.volumeMounts?.slice(1).map((m) => [m.mountPath, m.readOnly])).toEqual(host.Mounts?.map((m) => [m.Target, m.ReadOnly]));
  });
});
