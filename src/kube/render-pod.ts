// The Pod rendering of a composed spec: the third rendering beside `docker run` words and the
// Engine API body, and it must mean what they mean on every security-relevant field (a unit test
// compares it with renderCreateBody). Invariant: every security field is written out explicitly,
// never left to a cluster's default, and nothing of a node (hostPath, host namespaces) is ever asked.
import type { IPod } from "kubernetes-models/v1";
import { commandWords, type ComposedSpec, effectiveEnv, OWNER_LABEL, RUN_LABEL } from "../container/index.js";
import { KubernetesError } from "./kube-error.js";
import type { IContainer } from "kubernetes-models/v1";
import {
  AGENT_CONTAINER_NAME,
  DEFAULT_NAMESPACE,
  DEFAULT_POD_CPUS,
  ENV_SECRET_SUFFIX,
  HOLDER_CONTAINER_NAME,
  HOLDER_CPU,
  HOLDER_MEMORY_BYTES,
  INPUTS_CONTAINER_NAME,
} from "./limits.js";
import { checkedLabels, checkedName } from "./names.js";
import type { PodOptions } from "./options.js";
import type { RunPod } from "./pod-types.js";
import { checkStopSignal, podCpu, podExtras, podUser } from "./pod-fields.js";
import { filesMountPath, podVolumes, type PodVolumeMount } from "./pod-volumes.js";

/** The Secret a Run's secret environment lives in: the Pod names its keys, never their values. */
export function envSecretName(spec: ComposedSpec): string {
  return `${spec.name}${ENV_SECRET_SUFFIX}`;
}

/** The run and owner labels, and every other label the spec carries, checked as Kubernetes takes them. */
export function podLabels(spec: ComposedSpec): Record<string, string> {
  return checkedLabels({ ...spec.labels, [RUN_LABEL]: spec.labels[RUN_LABEL] ?? "", [OWNER_LABEL]: spec.labels[OWNER_LABEL] ?? "" });
}

export function podNamespace(options: Pick<PodOptions, "namespace">): string {
  return checkedName("namespace", options.namespace ?? DEFAULT_NAMESPACE);
}

/** A bare Pod that runs the Run once: restartPolicy Never, stdin open without a TTY, locked down. */
export function renderPod(spec: ComposedSpec, options: PodOptions): RunPod {
  if (spec.networks.length > 0) {
    throw new KubernetesError(
      `networks ${JSON.stringify(spec.networks)} are Docker networks, which a Pod has none of; its reach is its NetworkPolicy, so leave networks out and choose the Run's network policy`,
    );
  }
  if (spec.deadline === undefined) {
    throw new KubernetesError(
      "the spec has no deadline, and a Run's Pod must end by itself (activeDeadlineSeconds); compose it with the Run's deadlineSeconds",
    );
  }
  checkStopSignal(spec);
  const { uid, gid } = podUser(spec.user);
  const { entry, afterImage } = commandWords(spec);
  const { volumes, mounts } = podVolumes(spec, options.outBytes, options.files?.workBytes);
  const runtimeClassName = options.runtimeClassName ?? spec.container.containerRuntime;
  const publicEnv = spec.container.publicEnv ?? {};
  const secretName = envSecretName(spec);
  const resources = { memory: String(spec.memoryBytes), cpu: podCpu(spec.cpus ?? DEFAULT_POD_CPUS) };
  // Built as Kubernetes' own type, so a field it does not have, or of another type, fails to compile.
  const pod: IPod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: checkedName("the Run's name", spec.name), namespace: podNamespace(options), labels: podLabels(spec) },
    spec: {
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: false,
      // The container's own timer ends the agent at spec.deadline; the kubelet ends the Pod a grace later.
      activeDeadlineSeconds: spec.deadline.seconds + spec.deadline.graceSeconds,
      terminationGracePeriodSeconds: spec.stopGraceSeconds,
      ...(runtimeClassName === undefined ? {} : { runtimeClassName: checkedName("runtimeClassName", runtimeClassName) }),
      ...podExtras(spec),
      securityContext: { runAsUser: uid, runAsGroup: gid, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: AGENT_CONTAINER_NAME,
          image: spec.image,
          imagePullPolicy: options.imagePullPolicy ?? "IfNotPresent",
          // As Docker splits them: a declared entrypoint's first word replaces the image's, the rest are arguments.
          ...(entry === undefined ? {} : { command: [entry] }),
          args: [...afterImage],
          ...(spec.workdir === undefined ? {} : { workingDir: spec.workdir }),
          env: [...effectiveEnv(spec)].map(([name, value]) =>
            publicEnv[name] === value ? { name, value } : { name, valueFrom: { secretKeyRef: { name: secretName, key: name, optional: false } } },
          ),
          stdin: true,
          stdinOnce: true,
          tty: false,
          securityContext: lockedDown(uid, gid),
          // Requests equal to limits: the Pod is scheduled where its limits fit (QoS Guaranteed when a CPU limit is set).
          resources: { limits: resources, requests: resources },
          volumeMounts: mounts.map((m) => ({ ...m })),
        },
        ...holderOf(spec, options, uid, gid, mounts),
      ],
      ...(options.files?.inputs === true ? { initContainers: [inputsOf(spec, options, uid, gid, mounts, resources)] } : {}),
      volumes: volumes.map((v) => ({ name: v.name, emptyDir: { ...v.emptyDir } })),
    },
  };
  return pod;
}

/**
 * Every container of a Run's Pod, the agent's and its helpers' alike, and the egress proxy's in a
 * cluster: as the spec's user, nothing added, nothing writable but its mounts.
 */
export function lockedDown(uid: number, gid: number): NonNullable<IContainer["securityContext"]> {
  return {
    runAsUser: uid,
    runAsGroup: gid,
    runAsNonRoot: true,
    privileged: false,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  };
}

/** The agent's mount of a place (work/ or out/), which the helpers mount at /work or /out, always writable. */
function placeMount(mounts: readonly PodVolumeMount[], place: "work" | "out"): PodVolumeMount {
  const mount = mounts.find((m) => m.name === place);
  if (mount === undefined) {
    throw new KubernetesError(`the Run's files need its ${place}/ in the Pod, and the spec mounts none; give the declaration staging (a workdir)`);
  }
  return { name: place, mountPath: filesMountPath(place), readOnly: false };
}

/**
 * The init container that unpacks the Run's inputs (tar on its stdin, sent once over attach) into
 * work/: the agent starts only after it has exited 0. Its memory is the agent's and work/'s size, as
 * the pages it writes to the memory-backed work/ count against it.
 */
function inputsOf(
  spec: ComposedSpec,
  options: PodOptions,
  uid: number,
  gid: number,
  mounts: readonly PodVolumeMount[],
  agent: Record<string, string>,
): IContainer {
  const work = placeMount(mounts, "work");
  const memory = String(spec.memoryBytes + (options.files?.workBytes ?? options.outBytes));
  const resources = { ...agent, memory };
  return {
    name: INPUTS_CONTAINER_NAME,
    image: spec.image,
    imagePullPolicy: options.imagePullPolicy ?? "IfNotPresent",
    command: ["tar"],
    args: ["-x", "-f", "-", "-C", work.mountPath],
    stdin: true,
    stdinOnce: true,
    tty: false,
    securityContext: lockedDown(uid, gid),
    resources: { limits: resources, requests: resources },
    volumeMounts: [work],
  };
}

/** The holder: `sleep` past the agent's exit, so the place it wrote can be read back over exec; none without files to keep. */
function holderOf(spec: ComposedSpec, options: PodOptions, uid: number, gid: number, mounts: readonly PodVolumeMount[]): IContainer[] {
  const keep = options.files?.keep;
  if (keep === undefined) return [];
  const holderSeconds = options.files?.holderSeconds ?? 0;
  if (!Number.isSafeInteger(holderSeconds) || holderSeconds < 1) {
    throw new KubernetesError(
      `files.holderSeconds ${JSON.stringify(holderSeconds)} is not a whole number of seconds of at least 1; write how long the holder may live`,
    );
  }
  const resources = { memory: String(HOLDER_MEMORY_BYTES), cpu: HOLDER_CPU };
  return [
    {
      name: HOLDER_CONTAINER_NAME,
      image: spec.image,
      imagePullPolicy: options.imagePullPolicy ?? "IfNotPresent",
      command: ["sleep"],
      args: [String(holderSeconds)],
      stdin: false,
      tty: false,
      securityContext: lockedDown(uid, gid),
      resources: { limits: resources, requests: resources },
      volumeMounts: [placeMount(mounts, keep)],
    },
  ];
}
