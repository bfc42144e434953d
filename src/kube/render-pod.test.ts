// Holds every security field of a Run's Pod over many specs, and proves that what a Pod cannot
// honour (hostile extraArgs, binds, names Kubernetes refuses) is refused naming the parameter.
import { describe, expect, it } from "vitest";
import { manySpecs, seeded, specFor } from "../../test/support/kube-specs.js";
import { AgentContainerError, type AgentContainer, composeSpec, validateAgentContainer } from "../container/index.js";
import { KubernetesError, type PodOptions, renderPodManifest } from "./index.js";
import { DEFAULT_POD_CPUS } from "./limits.js";

const NONE: PodOptions = { outBytes: 256 * 1024 * 1024, network: { policy: "none" } };
const SPECS = manySpecs(30, 400);

function manifestOf(declaration: AgentContainer, options: PodOptions = NONE) {
  return renderPodManifest(specFor(declaration, seeded(1), 0), options);
}

/** Every key anywhere in the object, with its value, so a test can ask "is X anywhere?". */
function everyEntry(value: unknown, path = ""): Array<[string, unknown]> {
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [[`${path}${key}`, inner] as [string, unknown], ...everyEntry(inner, `${path}${key}.`)]);
}

describe("a Run's Pod, over 400 specs", () => {
  it("renders every one, validated by kubernetes-models and the exact field list", () => {
    for (const { spec } of SPECS) expect(() => renderPodManifest(spec, NONE)).not.toThrow();
  });

  it("always locks the Pod down: never restarted, no token, no service links, no host namespaces", () => {
    for (const { spec } of SPECS) {
      const pod = renderPodManifest(spec, NONE).pod.spec;
      expect(pod).toMatchObject({
        restartPolicy: "Never",
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        hostNetwork: false,
        hostPID: false,
        hostIPC: false,
        shareProcessNamespace: false,
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      });
      expect(pod?.containers).toHaveLength(1);
      expect(Object.keys(pod ?? {})).not.toContain("initContainers");
      expect(Object.keys(pod ?? {})).not.toContain("ephemeralContainers");
    }
  });

  it("always locks the agent's container down, as the spec's user, never uid 0", () => {
    for (const { spec } of SPECS) {
      const [uid, gid] = spec.user.split(":").map(Number);
      const pod = renderPodManifest(spec, NONE).pod.spec;
      const container = pod?.containers[0];
      expect(container?.securityContext).toEqual({
        runAsUser: uid,
        runAsGroup: gid,
        runAsNonRoot: true,
        privileged: false,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(pod?.securityContext).toMatchObject({ runAsUser: uid, runAsGroup: gid });
      expect(uid).not.toBe(0);
      expect(container).toMatchObject({ stdin: true, stdinOnce: true, tty: false });
    }
  });

  it("limits memory and CPU as the spec does (CPU DEFAULT_POD_CPUS when it names none), and ends by itself a grace after the Run's deadline", () => {
    for (const { spec } of SPECS) {
      const pod = renderPodManifest(spec, NONE).pod.spec;
      const limits = pod?.containers[0]?.resources?.limits;
      expect(limits?.memory).toBe(String(spec.memoryBytes));
      expect(limits?.cpu).toBe(`${Math.round((spec.cpus ?? DEFAULT_POD_CPUS) * 1000)}m`);
      expect(pod?.containers[0]?.resources?.requests).toEqual(limits);
      expect(pod?.activeDeadlineSeconds).toBe((spec.deadline?.seconds ?? Number.NaN) + spec.stopGraceSeconds);
      expect(pod?.terminationGracePeriodSeconds).toBe(spec.stopGraceSeconds);
    }
  });

  it("gives the agent only memory-backed, size-limited emptyDirs: /tmp at the tmpfs size, work/ and out/ at outBytes", () => {
    for (const { spec } of SPECS) {
      const pod = renderPodManifest(spec, NONE).pod.spec;
      for (const volume of pod?.volumes ?? []) {
        expect(Object.keys(volume).sort()).toEqual(["emptyDir", "name"]);
        expect(volume.emptyDir).toEqual({ medium: "Memory", sizeLimit: String(volume.name === "tmp" ? spec.tmpfsBytes : NONE.outBytes) });
      }
      const mounts = pod?.containers[0]?.volumeMounts ?? [];
      expect(mounts[0]).toEqual({ name: "tmp", mountPath: "/tmp", readOnly: false });
      expect(mounts.slice(1).map((m) => [m.mountPath, m.readOnly])).toEqual(spec.mounts.map((m) => [m.Target, m.ReadOnly]));
    }
  });

  it("never asks anything of a node: no hostPath, hostPort, privileged, added capability or host namespace anywhere", () => {
    for (const { spec } of SPECS) {
      const entries = everyEntry(renderPodManifest(spec, NONE));
      const keys = entries.map(([key]) => key.split(".").at(-1));
      for (const forbidden of ["hostPath", "hostPort", "add", "hostUsers", "procMount", "nodeName", "serviceAccountName"])
        expect(keys).not.toContain(forbidden);
      for (const [key, value] of entries) {
        if (/(^|\.)(hostNetwork|hostPID|hostIPC|privileged|allowPrivilegeEscalation|shareProcessNamespace)$/.test(key)) expect(value).toBe(false);
      }
    }
  });

  it("labels Pod and NetworkPolicy with the same keys and values as the containers, the run and owner among them", () => {
    for (const { spec } of SPECS) {
      const { pod, networkPolicy } = renderPodManifest(spec, NONE);
      expect(pod.metadata?.labels).toEqual(spec.labels);
      expect(networkPolicy.metadata?.labels).toEqual(spec.labels);
      expect(pod.metadata?.labels?.["agentcage.run"]).toMatch(/^[0-9a-f]{16}$/);
      expect(pod.metadata?.labels?.["agentcage.owner"]).toBe(spec.container.owner ?? "agentcage");
    }
  });

  it("puts no secret value in the Pod: secret env is a key of the Run's Secret, public env a value", () => {
    for (const { spec } of SPECS) {
      const pod = renderPodManifest(spec, NONE).pod;
      const text = JSON.stringify(pod);
      for (const secret of ["sk-ant-secret-value-123", "extra-secret-value-1", "per-run-token-value-9"]) expect(text).not.toContain(secret);
      for (const env of pod.spec?.containers[0]?.env ?? []) {
        if (env.value !== undefined) expect(spec.container.publicEnv?.[env.name]).toBe(env.value);
        else expect(env.valueFrom).toEqual({ secretKeyRef: { name: `${spec.name}-env`, key: env.name, optional: false } });
      }
    }
  });

  it("takes runtimeClassName from the options, else from the declaration's containerRuntime", () => {
    expect(manifestOf({ image: "a:1", user: "10002:10002" }).pod.spec?.runtimeClassName).toBeUndefined();
    expect(manifestOf({ image: "a:1", user: "10002:10002", containerRuntime: "runsc" }).pod.spec?.runtimeClassName).toBe("runsc");
    expect(
      manifestOf({ image: "a:1", user: "10002:10002", containerRuntime: "runsc" }, { ...NONE, runtimeClassName: "gvisor" }).pod.spec?.runtimeClassName,
    ).toBe("gvisor");
  });

  it("maps extraArgs' hostname, add-host and dns to the Pod's own fields", () => {
    const spec = manifestOf({
      image: "a:1",
      user: "10002:10002",
      extraArgs: ["--hostname", "cage", "--add-host", "models.internal:10.0.0.5", "--add-host=mirror:10.0.0.5", "--dns", "10.0.0.53"],
    }).pod.spec;
    expect(spec).toMatchObject({
      hostname: "cage",
      hostAliases: [{ ip: "10.0.0.5", hostnames: ["models.internal", "mirror"] }],
      dnsPolicy: "None",
      dnsConfig: { nameservers: ["10.0.0.53"] },
    });
  });
});

describe("a Run's Pod with its files (the inputs init container and the holder), over 400 specs", () => {
  const FILES: PodOptions = { ...NONE, files: { inputs: true, keep: "out", holderSeconds: 700, workBytes: 3 * 1024 * 1024 } };
  const staged = SPECS.filter(({ spec }) => spec.mounts.some((m) => m.Target.endsWith("/out")));

  it("renders every staged one, validated by kubernetes-models and the exact field list", () => {
    expect(staged.length).toBeGreaterThan(20);
    for (const { spec } of staged) expect(() => renderPodManifest(spec, FILES)).not.toThrow();
  });

  it("locks every container down as the agent's is: same user, nothing added, read-only root, no TTY", () => {
    for (const { spec } of staged) {
      const [uid, gid] = spec.user.split(":").map(Number);
      const pod = renderPodManifest(spec, FILES).pod.spec;
      const all = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
      expect(all.map((c) => c.name)).toEqual(["inputs", "agent", "holder"]);
      for (const container of all) {
        expect(container.securityContext, container.name).toEqual(pod?.containers[0]?.securityContext);
        expect(container.securityContext, container.name).toMatchObject({ runAsUser: uid, runAsGroup: gid, runAsNonRoot: true });
        expect(container.tty, container.name).toBe(false);
        expect(container.image, container.name).toBe(spec.image);
        expect(container.env, container.name).toEqual(container.name === "agent" ? expect.any(Array) : undefined);
        expect(container.resources?.limits?.memory, container.name).toMatch(/^\d+$/);
        expect(container.resources?.requests, container.name).toEqual(container.resources?.limits);
      }
    }
  });

  it("gives the helpers only the places they copy: inputs writes work/ from its stdin, the holder keeps out/ with sleep", () => {
    for (const { spec } of staged) {
      const pod = renderPodManifest(spec, FILES).pod.spec;
      const [inputs] = pod?.initContainers ?? [];
      const holder = pod?.containers[1];
      expect(inputs).toMatchObject({ command: ["tar"], args: ["-x", "-f", "-", "-C", "/work"], stdin: true, stdinOnce: true });
      expect(inputs?.volumeMounts).toEqual([{ name: "work", mountPath: "/work", readOnly: false }]);
      expect(holder).toMatchObject({ command: ["sleep"], args: ["700"], stdin: false });
      expect(holder?.volumeMounts).toEqual([{ name: "out", mountPath: "/out", readOnly: false }]);
      // The agent's own mounts are as without files: work/ read-only, out/ its own.
      expect(pod?.containers[0]?.volumeMounts?.slice(1).map((m) => [m.mountPath, m.readOnly])).toEqual(spec.mounts.map((m) => [m.Target, m.ReadOnly]));
      expect(pod?.volumes?.find((v) => v.name === "work")?.emptyDir).toEqual({ medium: "Memory", sizeLimit: String(3 * 1024 * 1024) });
    }
  });

  it("never asks anything of a node with its helpers either", () => {
    for (const { spec } of staged) {
      const entries = everyEntry(renderPodManifest(spec, FILES));
      const keys = entries.map(([key]) => key.split(".").at(-1));
      for (const forbidden of ["hostPath", "hostPort", "add", "hostUsers", "procMount", "nodeName", "serviceAccountName", "ephemeralContainers"])
        expect(keys).not.toContain(forbidden);
      for (const [key, value] of entries) {
        if (/(^|\.)(hostNetwork|hostPID|hostIPC|privileged|allowPrivilegeEscalation|shareProcessNamespace)$/.test(key)) expect(value).toBe(false);
        if (/(^|\.)readOnlyRootFilesystem$/.test(key)) expect(value).toBe(true);
      }
    }
  });

  it("refuses files for a spec with no workspace, and a holder that would not live a second", () => {
    const bare = SPECS.find(({ spec }) => spec.mounts.length === 0)?.spec;
    expect(bare).toBeDefined();
    if (bare === undefined) return;
    expect(() => renderPodManifest(bare, FILES)).toThrow(/the Run's files need its (work\/|out\/) in the Pod, and the spec mounts none/);
    const spec = staged[0]?.spec;
    if (spec === undefined) return;
    expect(() => renderPodManifest(spec, { ...FILES, files: { inputs: false, keep: "out", holderSeconds: 0 } })).toThrow(
      /files.holderSeconds 0 is not a whole number/,
    );
  });
});

describe("what a Pod cannot honour", () => {
  const base = { image: "a:1", user: "10002:10002" };

  it("is refused already by the declaration for every flag that would widen the container", () => {
    const hostile = [
      ["--privileged"],
      ["--cap-add=SYS_ADMIN"],
      ["--network=host"],
      ["--pid", "host"],
      ["--ipc=host"],
      ["--userns=host"],
      ["-v", "/:/host"],
      ["--mount", "type=bind,source=/,target=/host"],
      ["--device", "/dev/kmsg"],
      ["--security-opt", "seccomp=unconfined"],
      ["--user=0"],
      ["--read-only=false"],
      ["--runtime=runc"],
    ];
    for (const extraArgs of hostile) {
      expect(() => validateAgentContainer({ ...base, extraArgs }), extraArgs.join(" ")).toThrow(AgentContainerError);
      expect(() => validateAgentContainer({ ...base, extraArgs }), extraArgs.join(" ")).toThrow(JSON.stringify(extraArgs[0]));
    }
  });

  it.each([
    [{ extraArgs: ["--stop-signal", "SIGKILL"] }, /extraArgs --stop-signal "SIGKILL" cannot be honoured by a Pod/],
    [{ extraArgs: ["--add-host", "gw:host-gateway"] }, /extraArgs --add-host "gw:host-gateway" is not host:address/],
    [{ extraArgs: ["--hostname", "Not_A_Label"] }, /extraArgs --hostname "Not_A_Label" is not a DNS label/],
    [{ extraArgs: ["--dns", "dns.example"] }, /extraArgs --dns "dns.example" is not an IP address/],
    [{ extraArgs: ["--dns", "1.1.1.1", "--dns", "1.0.0.1", "--dns", "8.8.8.8", "--dns", "8.8.4.4"] }, /names 4 nameservers and a Pod takes at most 3/],
    [{ extraArgs: ["--label", "note=has spaces"] }, /label note="has spaces" has a value Kubernetes does not take/],
    [{ labels: { "bad key!": "x" } }, /label "bad key!" is not a Kubernetes label key/],
    [{ user: "agent:agent" }, /user "agent:agent" is not a numeric uid:gid/],
    [{ user: "10002" }, /user "10002" is not a numeric uid:gid/],
    [{ limits: { cpus: 0.0105 } }, /limits.cpus 0.0105 is finer than a millicore/],
    [{ networks: ["agents"] }, /networks \["agents"\] are Docker networks/],
    [
      { mounts: { runtimeDir: "/srv/agentcage", entries: [{ agentPath: "/data", path: "data", readOnly: true }] } },
      /mounts \["\/data"\] bind a host's directories.*no hostPath/,
    ],
    [{ containerRuntime: "io.containerd.runsc_v1" }, /runtimeClassName "io.containerd.runsc_v1" is not a Kubernetes name/],
  ] as const)("refuses %j naming the parameter and its value", (change, message) => {
    expect(() => manifestOf({ ...base, ...change } as AgentContainer)).toThrow(KubernetesError);
    expect(() => manifestOf({ ...base, ...change } as AgentContainer)).toThrow(message);
  });

  it("refuses a secret file or a session store mount, a spec with no deadline, and a namespace that is no name", () => {
    const container = validateAgentContainer({ ...base, staging: { runtimeDir: "/srv/s" } });
    const secretFile = composeSpec(container, {
      runId: "00000000000000aa",
      planArgs: [],
      deadlineSeconds: 60,
      stagedMounts: [{ agentPath: "/run/secrets/key", path: "00000000000000aa/secrets/0", readOnly: true }],
    });
    expect(() => renderPodManifest(secretFile, NONE)).toThrow(
      /the Run's mount at "\/run\/secrets\/key" \(a secret file or a session store\) does not reach a Pod yet/,
    );
    const timeless = composeSpec(container, { runId: "00000000000000ab", planArgs: [] });
    expect(() => renderPodManifest(timeless, NONE)).toThrow(/the spec has no deadline/);
    const fine = composeSpec(container, { runId: "00000000000000ac", planArgs: [], deadlineSeconds: 60 });
    expect(() => renderPodManifest(fine, { ...NONE, namespace: "Agents_NS" })).toThrow(/namespace "Agents_NS" is not a Kubernetes name/);
    expect(renderPodManifest(fine, { ...NONE, namespace: "agents" }).pod.metadata?.namespace).toBe("agents");
    expect(renderPodManifest(fine, NONE).pod.metadata?.namespace).toBe("agentcage");
  });
});
