// Whether a namespace may hold a Run's Pod: only one whose Pod Security admission enforces the
// `restricted` standard, so the cluster itself refuses a Pod that would lose a security field.
// Invariant: anything but an explicit `enforce: restricted` label is refused, naming what is there.
import { KubernetesError } from "./kube-error.js";
import { PSS_ENFORCE_LABEL, PSS_REQUIRED_LEVEL } from "./limits.js";
import type { KubeMetadata } from "./pod-types.js";

/** Returns the namespace's name, or throws KubernetesError saying which label to set. */
export function checkNamespace(namespace: { readonly metadata?: KubeMetadata }): string {
  const name = namespace.metadata?.name ?? "(unnamed)";
  const level = namespace.metadata?.labels?.[PSS_ENFORCE_LABEL];
  if (level === PSS_REQUIRED_LEVEL) return name;
  const found = level === undefined ? "has no" : `has ${PSS_ENFORCE_LABEL}=${JSON.stringify(level)} as its`;
  throw new KubernetesError(
    `namespace ${JSON.stringify(name)} ${found} Pod Security label, so the cluster would not refuse a Pod that lost a security field; run \`kubectl label namespace ${name} ${PSS_ENFORCE_LABEL}=${PSS_REQUIRED_LEVEL}\``,
  );
}
