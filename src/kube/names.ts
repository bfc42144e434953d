// Whether a name, a label, a port or a value is one Kubernetes takes, checked before anything is sent, so a
// refusal names our parameter rather than coming back as the API server's 422 about a Pod field.
// The rules are Kubernetes' own (apimachinery validation: qualified names, label values, DNS names).
import { KubernetesError } from "./kube-error.js";
import { MAX_LABEL_CHARS, MAX_NAME_CHARS } from "./limits.js";

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A DNS subdomain (RFC 1123): an object's name, a namespace, a RuntimeClass, a label key's prefix. */
export function isDnsSubdomain(value: string): boolean {
  return value.length > 0 && value.length <= MAX_NAME_CHARS && value.split(".").every((part) => DNS_LABEL.test(part));
}

/** A DNS label (RFC 1123): a hostname, a container's name. */
export function isDnsLabel(value: string): boolean {
  return value.length <= MAX_LABEL_CHARS && DNS_LABEL.test(value);
}

function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  return (prefix === undefined || isDnsSubdomain(prefix)) && name.length <= MAX_LABEL_CHARS && LABEL_NAME.test(name);
}

function isLabelValue(value: string): boolean {
  return value === "" || (value.length <= MAX_LABEL_CHARS && LABEL_NAME.test(value));
}

/** The labels as they are, or a refusal naming the first that Kubernetes would not take. */
export function checkedLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  for (const [key, value] of Object.entries(labels)) {
    if (!isLabelKey(key)) {
      throw new KubernetesError(
        `label ${JSON.stringify(key)} is not a Kubernetes label key; write [prefix/]name with a name of at most ${MAX_LABEL_CHARS} letters, digits, "-", "_" or "."`,
      );
    }
    if (!isLabelValue(value)) {
      throw new KubernetesError(
        `label ${key}=${JSON.stringify(value)} has a value Kubernetes does not take; write at most ${MAX_LABEL_CHARS} letters, digits, "-", "_" or ".", starting and ending with a letter or digit`,
      );
    }
  }
  return { ...labels };
}

/** A name the options give (namespace, RuntimeClass), or a refusal naming the option. */
export function checkedName(option: string, value: string): string {
  if (!isDnsSubdomain(value)) {
    throw new KubernetesError(`${option} ${JSON.stringify(value)} is not a Kubernetes name; write lower-case letters, digits, "-" and "."`);
  }
  return value;
}

/** A TCP port the options give (the egress proxy's), or a refusal naming the option. */
export function checkedPort(option: string, port: number): number {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new KubernetesError(`${option} ${JSON.stringify(port)} is not a TCP port; write the egress proxy's port, 1 to 65535`);
  }
  return port;
}
