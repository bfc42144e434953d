// Every bound and fixed name the Kubernetes backend holds a Pod to, in one place, with the unit in
// the name. Kubernetes' own limits (label lengths, nameservers) are quoted from its API reference.

/** The container of a Run's Pod that runs the agent. */
export const AGENT_CONTAINER_NAME = "agent";
/** The init container that unpacks the Run's inputs (a tar on its stdin) into work/ before the agent starts. */
export const INPUTS_CONTAINER_NAME = "inputs";
/** The container that keeps out/ (or a writable work/) mounted past the agent's exit, to be read back over exec. */
export const HOLDER_CONTAINER_NAME = "holder";
/** The holder's memory: it runs `sleep`, and `tar` once, over exec. */
export const HOLDER_MEMORY_BYTES = 32 * 1024 * 1024;
/** The holder's CPU, in Kubernetes' quantity: it sleeps, and runs `tar` once. */
export const HOLDER_CPU = "100m";
/**
 * The agent's CPU limit (and request) when the declaration's limits.cpus names none: a Pod's is never
 * left to the cluster's default, which may be no limit at all. On Docker such a Run has no CPU limit.
 */
export const DEFAULT_POD_CPUS = 2;

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
/**
 * How long a Run's Pod may take to be scheduled and started (image pulled) before the Run ends
 * unavailable, unless `kubernetes.startTimeoutMs` says otherwise; the refusal names that option.
 */
export const POD_START_TIMEOUT_MS = 120_000;
/**
 * After the agent's stdout closes, how long the API takes to report its container's exit on an idle
 * machine (stretched by the load); past it the report is late, said (onSlow) and waited for again:
 * only the Pod shown gone (deleted, ended) or the API server shown gone ends the wait, or the Run's own deadline.
 */
export const POD_EXIT_REPORT_MS = 30_000;
/** A Pod's watch the server ended is started again after this, doubled for each one in a row that failed, up to WATCH_RETRY_MAX_MS. */
export const WATCH_RETRY_MIN_MS = 200;
export const WATCH_RETRY_MAX_MS = 5000;
/** Watches of a Pod in a row whose connection the API server refused before it is taken for gone (the Run's wait on its Pod ends `unavailable`). */
export const WATCH_REFUSALS_GONE = 3;
/** Bytes of the agent's stdout (and, apart, its stderr) a Pod Run keeps; past it the rest is dropped and the result says so. */
export const MAX_POD_OUTPUT_BYTES = 64 * 1024 * 1024;
/** How long putting the inputs in, and reading out/ back, may each take on an idle machine (stretched by the load). */
export const POD_COPY_TIMEOUT_MS = 120_000;
/** The attach subprotocol that can close stdin and keep reading stdout (Kubernetes 1.30+). */
export const ATTACH_PROTOCOL = "v5.channel.k8s.io";
/** Ownership labels a sweep reads (the runtime writes them on every container and Pod). */
export const SESSION_LABEL = "agentcage.session";
export const DEADLINE_LABEL = "agentcage.deadline";
/** The in-cluster egress proxy's container, and the labels its Pod and Service are found by. */
export const EGRESS_CONTAINER_NAME = "egress";
export const EGRESS_NAME_LABEL = "app.kubernetes.io/name";
export const EGRESS_NAME_VALUE = "agentcage-egress";
/** Which proxy of several (one per runtime): its Pod's own name. */
export const EGRESS_INSTANCE_LABEL = "app.kubernetes.io/instance";
