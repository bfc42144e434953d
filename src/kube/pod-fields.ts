// The one place a composed spec's fields that Docker and Kubernetes spell differently are
// translated: the user, the CPU limit, the stop signal and what extraArgs add. Invariant: a value a
// Pod cannot carry exactly is refused here, naming the parameter; nothing is dropped or rounded.
import { isIP } from "node:net";
import type { ComposedSpec } from "../container/index.js";
import { KubernetesError } from "./kube-error.js";
import { MAX_NAMESERVERS } from "./limits.js";
import { isDnsLabel } from "./names.js";

/** runAsUser and runAsGroup: Kubernetes takes numbers only, and both, so no group falls back to 0. */
export function podUser(user: string): { readonly uid: number; readonly gid: number } {
  const match = /^(\d+):(\d+)$/.exec(user);
  if (match === null) {
    throw new KubernetesError(
      `user ${JSON.stringify(user)} is not a numeric uid:gid; a Pod's runAsUser and runAsGroup are numbers and the image's names are not read, write it like "10002:10002"`,
    );
  }
  const uid = Number(match[1]);
  const gid = Number(match[2]);
  // The declaration already refuses uid 0; a Pod says runAsNonRoot as well, and this keeps both true.
  if (uid === 0 || !Number.isSafeInteger(uid) || !Number.isSafeInteger(gid)) {
    throw new KubernetesError(`user ${JSON.stringify(user)} is uid 0 or out of range; write a non-zero uid such as "10002:10002"`);
  }
  return { uid, gid };
}

/** The CPU limit in millicores, the finest a Pod's quantity takes; a finer one is refused, not rounded. */
export function podCpu(cpus: number): string {
  const milli = cpus * 1000;
  if (Math.abs(milli - Math.round(milli)) > 1e-6) {
    throw new KubernetesError(
      `limits.cpus ${JSON.stringify(cpus)} is finer than a millicore, which a Pod cannot say; write it in thousandths, e.g. 1.5 or 0.25`,
    );
  }
  return `${Math.round(milli)}m`;
}

/**
 * A Pod is stopped by the image's STOPSIGNAL; the field that changes it (lifecycle.stopSignal) is
 * alpha and silently dropped where its gate is off, so only SIGTERM can be promised.
 */
export function checkStopSignal(spec: ComposedSpec): void {
  const signal = spec.container.extra.stopSignal;
  if (signal === undefined) return;
  if (!["SIGTERM", "TERM", "15"].includes(signal.toUpperCase())) {
    throw new KubernetesError(
      `extraArgs --stop-signal ${JSON.stringify(signal)} cannot be honoured by a Pod, which stops its container with the image's own signal; leave it out or bake STOPSIGNAL into the image`,
    );
  }
}

export type PodExtras = {
  readonly hostname?: string;
  readonly hostAliases?: Array<{ ip: string; hostnames: string[] }>;
  readonly dnsPolicy?: "None";
  readonly dnsConfig?: { nameservers: string[] };
};

/** What extraArgs' --hostname, --add-host and --dns become in a Pod's spec. */
export function podExtras(spec: ComposedSpec): PodExtras {
  const extra = spec.container.extra;
  if (extra.hostname !== undefined && !isDnsLabel(extra.hostname)) {
    throw new KubernetesError(
      `extraArgs --hostname ${JSON.stringify(extra.hostname)} is not a DNS label, which a Pod's hostname must be; write lower-case letters, digits and "-"`,
    );
  }
  const aliases = new Map<string, string[]>();
  for (const entry of extra.addHosts) {
    const cut = Math.max(entry.lastIndexOf("="), entry.indexOf(":"));
    const [host, ip] = [entry.slice(0, cut), entry.slice(cut + 1)];
    if (cut <= 0 || isIP(ip) === 0) {
      throw new KubernetesError(
        `extraArgs --add-host ${JSON.stringify(entry)} is not host:address with a literal IP address (a Pod has no host-gateway); write it like "models.internal:10.0.0.5"`,
      );
    }
    aliases.set(ip, [...(aliases.get(ip) ?? []), host]);
  }
  for (const server of extra.dns) {
    if (isIP(server) === 0) throw new KubernetesError(`extraArgs --dns ${JSON.stringify(server)} is not an IP address; write the nameserver's address`);
  }
  if (extra.dns.length > MAX_NAMESERVERS) {
    throw new KubernetesError(`extraArgs --dns names ${extra.dns.length} nameservers and a Pod takes at most ${MAX_NAMESERVERS}; name fewer`);
  }
  return {
    ...(extra.hostname === undefined ? {} : { hostname: extra.hostname }),
    ...(aliases.size === 0 ? {} : { hostAliases: [...aliases].map(([ip, hostnames]) => ({ ip, hostnames })) }),
    ...(extra.dns.length === 0 ? {} : { dnsPolicy: "None" as const, dnsConfig: { nameservers: [...extra.dns] } }),
  };
}
