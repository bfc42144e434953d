// The Run's Secret: the one object that holds the agent's secret environment, so the Pod names
// keys and never values. Invariant: only names the Pod reads by secretKeyRef are in it, and it is
// never printed (plan shows the Pod alone); it is removed with the Pod.
import type { ISecret } from "kubernetes-models/v1";
import { type ComposedSpec, effectiveEnv } from "../container/index.js";
import { envSecretName, podLabels, podNamespace } from "./render-pod.js";
import type { PodOptions } from "./options.js";
import type { RunSecret } from "./pod-types.js";

/** The Secret, or undefined when the agent has no secret environment. */
export function renderEnvSecret(spec: ComposedSpec, options: Pick<PodOptions, "namespace">): RunSecret | undefined {
  const publicEnv = spec.container.publicEnv ?? {};
  const secret = [...effectiveEnv(spec)].filter(([name, value]) => publicEnv[name] !== value);
  if (secret.length === 0) return undefined;
  const object: ISecret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: envSecretName(spec), namespace: podNamespace(options), labels: podLabels(spec) },
    type: "Opaque",
    immutable: true,
    stringData: Object.fromEntries(secret),
  };
  return object;
}
