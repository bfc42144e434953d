// Every bound and fixed name the Kubernetes backend holds a Pod to, in one place, with the unit in
// the name. Kubernetes' own limits (label lengths, nameservers) are quoted from its API reference.

/** The one container of a Run's Pod. */
export const AGENT_CONTAINER_NAME = "agent";
/** Where a Pod is made when its options name no namespace. */
export const DEFAULT_NAMESPACE = "agentcage";
/** A label's name part and its value, at most (Kubernetes' validation.LabelValueMaxLength). */
export const MAX_LABEL_CHARS = 63;
/** An object's name (a DNS subdomain), at most. */
export const MAX_NAME_CHARS = 253;
/** Nameservers a Pod's dnsConfig takes, at most (Kubernetes' MaxDNSNameservers). */
export const MAX_NAMESERVERS = 3;
/** The label the Pod Security admission reads to enforce a standard on a namespace. */
export const PSS_ENFORCE_LABEL = "pod-security.kubernetes.io/enforce";
/** The standard a namespace must enforce before a Run's Pod goes there. */
export const PSS_REQUIRED_LEVEL = "restricted";
/** The suffix of the per-Run Secret holding the agent's secret environment (never in the Pod). */
export const ENV_SECRET_SUFFIX = "-env";
