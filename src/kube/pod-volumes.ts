// What a Run's Pod can reach on disk: only memory-backed, size-limited emptyDirs (/tmp, the Run's
// work/ and out/), never a path of a node. Invariant: every mount of the spec is the Run's own
// workspace or it is refused; a declared bind (a Mount Table) has no Pod equivalent and is refused.
import { agentWorkdirOf, type ComposedSpec } from "../container/index.js";
import { KubernetesError } from "./kube-error.js";

export type PodVolume = { readonly name: string; readonly emptyDir: { readonly medium: "Memory"; readonly sizeLimit: string } };
export type PodVolumeMount = { readonly name: string; readonly mountPath: string; readonly readOnly: boolean };

/** Where the inputs and holder containers mount a place of the Run (as the Docker holder does): /work, /out. */
export function filesMountPath(place: "work" | "out"): string {
  return `/${place}`;
}

/** The Pod's volumes and the agent's mounts of them, in the order the spec mounts them, /tmp first. */
export function podVolumes(spec: ComposedSpec, outBytes: number, workBytes = outBytes): { readonly volumes: PodVolume[]; readonly mounts: PodVolumeMount[] } {
  const declared = spec.container.mounts?.entries ?? [];
  if (declared.length > 0) {
    throw new KubernetesError(
      `mounts ${JSON.stringify(declared.map((entry) => entry.agentPath))} bind a host's directories, which a Pod never gets (no hostPath); leave mounts out and give the Run its files as inputs`,
    );
  }
  const memory = (name: string, bytes: number): PodVolume => ({ name, emptyDir: { medium: "Memory", sizeLimit: String(bytes) } });
  const volumes = [memory("tmp", spec.tmpfsBytes)];
  const mounts: PodVolumeMount[] = [{ name: "tmp", mountPath: "/tmp", readOnly: false }];
  const workdir = agentWorkdirOf(spec.container);
  const places =
    workdir === undefined
      ? new Map<string, string>()
      : new Map([
          [workdir, "work"],
          [`${workdir.replace(/\/+$/, "")}/out`, "out"],
        ]);
  for (const mount of spec.mounts) {
    const name = places.get(mount.Target);
    if (name === undefined) {
      throw new KubernetesError(
        `the Run's mount at ${JSON.stringify(mount.Target)} (a secret file or a session store) does not reach a Pod yet; leave secretFiles and sessions out of a Run on Kubernetes`,
      );
    }
    volumes.push(memory(name, name === "work" ? workBytes : outBytes));
    mounts.push({ name, mountPath: mount.Target, readOnly: mount.ReadOnly });
  }
  return { volumes, mounts };
}
