// What `agentcage doctor` concludes from what the library found: one check per line, each ok, a
// warning, a failure or skipped, and for every warning and failure the fix. Pure: the facts come
// in, the verdicts go out. Invariant: no verdict quotes a credential; a kind is all it names.

import { posix } from "node:path";
import type { AgentCli, CredentialKind } from "../agents/index.js";
import type { CliVersion } from "../runner/index.js";
import type { EngineReport, ImageReport, MountsReport, StagingProbe } from "../probes/index.js";

// The engine's own types, as the probes' reports carry them: the command never imports the engine.
export type EngineFacts = Extract<EngineReport, { readonly ok: true }>["facts"];
export type ContainerMount = NonNullable<Extract<MountsReport, { readonly ok: true }>["mounts"]>[number];

export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of the report; `fix` only with warn and fail. */
export type DoctorCheck = { readonly check: string; readonly status: CheckStatus; readonly detail: string; readonly fix?: string };

/** Where this process runs: on a host, or in a container (and what says so). */
export type Whereabouts = {
  readonly inContainer: boolean;
  /** What gave it away: "/.dockerenv", "/run/.containerenv", "/proc/1/cgroup"; "" on a host. */
  readonly evidence: string;
  /** This process's own container, when the signs name it. */
  readonly containerId?: string;
};

/** The first runc release with the fix for CVE-2024-21626 (a container escape through a leaked working-directory descriptor). */
export const RUNC_FIXED_VERSION = "1.1.12";
/** How the fix for a missing or foreign agent image is worded. */
export const BUILD_AGENT_IMAGE = "agentcage image build agent";

export type Version = { readonly major: number; readonly minor: number; readonly patch: number; readonly prerelease: readonly (string | number)[] };

/**
 * A release version as engines and distributions write it: "1.1.12", "v1.1.12", "1.2.0-rc.1",
 * git describe's "v1.1.12-0-g51d5e94" (commits after a tag are that tag or later), a
 * distribution's "1.1.5+ds1" (build metadata, ignored). Undefined when there is none.
 */
export function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?(.*)$/.exec(text.trim());
  if (match === null) return undefined;
  let rest = (match[4] ?? "").replace(/\+.*$/, "").replace(/-\d+-g[0-9a-f]+$/, "");
  if (rest.startsWith("~")) rest = `-${rest.slice(1)}`;
  if (rest !== "" && !/^-[0-9A-Za-z.-]+$/.test(rest)) return undefined;
  const prerelease =
    rest === ""
      ? []
      : rest
          .slice(1)
          .split(".")
          .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0), prerelease };
}

/** Semantic-versioning order: negative when a comes first; a pre-release comes before its release. */
export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const [x, y] = [a.prerelease[i], b.prerelease[i]];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return Math.sign(x - y);
    if (typeof x === "number" || typeof y === "number") return typeof x === "number" ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Whether this runc predates the fix for CVE-2024-21626; undefined when its version cannot be read. */
export function runcPredatesFix(version: string): boolean | undefined {
  const parsed = parseVersion(version);
  return parsed === undefined ? undefined : compareVersions(parsed, parseVersion(RUNC_FIXED_VERSION) as Version) < 0;
}

const skip = (check: string, why: string): DoctorCheck => ({ check, status: "skip", detail: why });

/** Engine reachable, and what it is. */
export function engineCheck(report: EngineReport, where: string): DoctorCheck {
  if (report.ok) {
    const f = report.facts;
    const platform = f.os !== "" && f.arch !== "" ? `, ${f.os}/${f.arch}` : "";
    const api = f.apiVersion === "" ? "" : `API ${f.apiVersion}`;
    const said = [api, platform.slice(2)].filter((s) => s !== "").join(", ");
    return {
      check: "engine",
      status: "ok",
      detail: `${f.name} ${f.serverVersion}${said === "" ? "" : ` (${said})`}${f.operatingSystem === "" ? "" : ` on ${f.operatingSystem}`}, at ${where}`,
    };
  }
  const fixes: Readonly<Record<string, string>> = {
    ENOENT: "start the engine (dockerd), or set DOCKER_HOST to the address of one that runs",
    ECONNREFUSED: "start the engine (dockerd), or set DOCKER_HOST to the address of one that runs",
    EACCES: "this user may not use the engine's socket: run as a member of its group (docker) or as root, or set DOCKER_HOST",
  };
  const fix =
    (report.code === undefined ? undefined : fixes[report.code]) ??
    (report.trouble === "tls"
      ? "mend the engine's TLS certificates as said above"
      : report.trouble === "ssh"
        ? "mend known_hosts or the ssh-agent's keys as said above"
        : "start the engine, or set DOCKER_HOST to the address of one that runs");
  // An unreachable engine is said by its code; anything else (a TLS or ssh refusal) in the words that say which side refused what.
  const detail = report.code === undefined || fixes[report.code] === undefined ? report.error : `no answer at ${where} (${report.code})`;
  return { check: "engine", status: "fail", detail, fix };
}

/** The runtime every Run gets (the engine's default), and whether runc has the fix for CVE-2024-21626. */
export function runtimeCheck(facts: EngineFacts): DoctorCheck {
  const check = "runtime";
  const name = facts.defaultRuntime === "" ? "runc" : facts.defaultRuntime;
  const registered = facts.runtimes.find((r) => r.name === name);
  const binary = posix.basename(registered?.path ?? name);
  const isRunc = binary === "runc" || name === "runc" || name.startsWith("io.containerd.runc.");
  const runc = facts.components.find((c) => c.name === "runc");
  const defaultNote = facts.defaultRuntime === "" ? "Runs get the engine's default runtime" : "it is the default runtime, which every Run gets";
  if (!isRunc) {
    const gvisor = binary === "runsc" || name === "runsc" ? " (gVisor)" : "";
    return {
      check,
      status: "ok",
      detail: `${name}${gvisor}: ${defaultNote}${runc === undefined ? "" : `; runc ${runc.version} is there too, unused by Runs`}`,
    };
  }
  if (runc === undefined || runc.version === "") {
    return {
      check,
      status: "warn",
      detail: `${name}: ${defaultNote}; the engine does not say which runc that is`,
      fix: `run \`runc --version\` on the engine's host: runc before ${RUNC_FIXED_VERSION} lacks the fix for CVE-2024-21626`,
    };
  }
  const build = runc.detail !== "" && runc.detail !== runc.version ? ` (build ${runc.detail})` : "";
  const predates = runcPredatesFix(runc.version);
  if (predates === undefined) {
    return {
      check,
      status: "warn",
      detail: `runc ${JSON.stringify(runc.version)}${build}: its version cannot be read; ${defaultNote}`,
      fix: `make sure it is runc ${RUNC_FIXED_VERSION} or later, which fixes CVE-2024-21626`,
    };
  }
  if (predates) {
    return {
      check,
      status: "warn",
      detail: `runc ${runc.version}${build} is older than ${RUNC_FIXED_VERSION}, which fixes CVE-2024-21626 (a container escape through a leaked directory descriptor); ${defaultNote}`,
      fix: `upgrade runc to ${RUNC_FIXED_VERSION} or later, or confirm that the package${runc.detail === "" ? "" : ` ${runc.detail}`} carries the fix backported (its changelog names CVE-2024-21626)`,
    };
  }
  return { check, status: "ok", detail: `runc ${runc.version}${build} has the fix for CVE-2024-21626; ${defaultNote}` };
}

/** Which runtimes the engine has registered, and whether gVisor is one. */
export function runtimesCheck(facts: EngineFacts): DoctorCheck {
  const check = "runtimes";
  if (facts.runtimes.length === 0) return { check, status: "ok", detail: "the engine does not list its runtimes" };
  const names = facts.runtimes.map((r) => (r.name === facts.defaultRuntime ? `${r.name} (default)` : r.name)).join(", ");
  const gvisor = facts.runtimes.find((r) => r.name === "runsc" || posix.basename(r.path ?? "") === "runsc");
  const others = facts.runtimes.filter((r) => /^(kata|crun|youki|sysbox)/.test(r.name)).map((r) => r.name);
  const gvisorNote =
    gvisor === undefined
      ? "gVisor (runsc) is not registered"
      : gvisor.name === facts.defaultRuntime
        ? `gVisor is registered as ${gvisor.name} and is the default`
        : `gVisor is registered as ${gvisor.name}; Runs get it only when it is the engine's default runtime`;
  return { check, status: "ok", detail: `${names}; ${gvisorNote}${others.length === 0 ? "" : `; also ${others.join(", ")}`}` };
}

/** The agent image is on the engine (nothing is pulled), built for the engine's platform. */
export function imageCheck(image: string, report: ImageReport, engine: EngineFacts | undefined, isAgentcagesOwn: boolean): DoctorCheck {
  const check = "image";
  const build = isAgentcagesOwn ? `build it: ${BUILD_AGENT_IMAGE}` : "build or load it on this engine, or name another with --image";
  if (!report.ok) return { check, status: "fail", detail: report.error, fix: "start the engine, or set DOCKER_HOST to the address of one that runs" };
  if (report.facts === undefined) return { check, status: "fail", detail: `${image} is not on this engine (nothing is pulled)`, fix: build };
  const f = report.facts;
  const id = f.id.replace(/^sha256:/, "").slice(0, 12);
  const platform = f.os !== "" && f.arch !== "" ? `, ${f.os}/${f.arch}` : "";
  const detail = `${image} (${id}${f.created === "" ? "" : `, built ${f.created.slice(0, 19).replace("T", " ")}`}${platform})`;
  if (engine !== undefined && engine.arch !== "" && f.arch !== "" && engine.arch !== f.arch) {
    return {
      check,
      status: "warn",
      detail: `${detail} is built for ${f.arch}, and the engine runs ${engine.arch}`,
      fix: `${isAgentcagesOwn ? `rebuild it on this engine: ${BUILD_AGENT_IMAGE}` : "use an image built for the engine's platform"}`,
    };
  }
  return { check, status: "ok", detail };
}

/** Which version of a CLI the image holds, as the CLI itself says, beside the one agentcage pins. */
export function cliCheck(cli: AgentCli, found: CliVersion, pinned: string | undefined): DoctorCheck {
  const check = `${cli} cli`;
  if (!found.ok)
    return { check, status: "fail", detail: found.error, fix: `rebuild the agent image (${BUILD_AGENT_IMAGE}), or name one that holds ${cli} with --image` };
  if (pinned === undefined) return { check, status: "ok", detail: `${cli} ${found.version} in the image ("${found.said}")` };
  if (found.version === pinned) return { check, status: "ok", detail: `${cli} ${found.version} in the image, the version agentcage pins` };
  return {
    check,
    status: "warn",
    detail: `${cli} ${found.version} in the image; this agentcage was checked against ${pinned}, and a setting that turns off ${cli}'s telemetry or updates may be unknown to another version`,
    fix: `rebuild the agent image from this agentcage: ${BUILD_AGENT_IMAGE}`,
  };
}

const KIND_WORDS: Readonly<Record<CredentialKind, string>> = {
  oauth_token: "an OAuth token (oauth_token)",
  api_key: "an API key (api_key)",
  login: "a ChatGPT login (login)",
  none: "none",
};

/**
 * The kind of credential a Run of this CLI would get, never its value. `looked` is where it was
 * looked for; `problem` a source that is there but unusable (a secrets file readable by others).
 */
export function credentialCheck(cli: AgentCli, kind: CredentialKind, looked: readonly string[], problem: string | undefined): DoctorCheck {
  const check = `${cli} credential`;
  if (problem !== undefined) return { check, status: "fail", detail: problem, fix: "correct the credential's source as said, or remove it" };
  if (kind !== "none") return { check, status: "ok", detail: `${KIND_WORDS[kind]}; its value is never shown` };
  const where = looked.length === 0 ? "its credential" : looked.map((l) => (l.startsWith("$") ? l : JSON.stringify(l))).join(" or ");
  return {
    check,
    status: "warn",
    detail: `none, so every ${cli} Run ends as unavailable (unless it runs against the stand-in model)`,
    fix: `set ${where}${looked.some((l) => !l.startsWith("$")) ? " (a file: mode 0600)" : ""} where agentcage runs`,
  };
}

/** Whether this process can write the Staging Directory, from the probe's first step. */
export function stagingCheck(probe: StagingProbe): DoctorCheck {
  const check = "staging directory";
  if (!probe.ok && probe.failure === "unwritable") {
    const uid = process.getuid?.();
    return {
      check,
      status: "fail",
      detail: probe.error,
      fix: `make ${probe.runtimeDir} writable${uid === undefined ? "" : ` by uid ${uid}`}, or name a directory this process can write with --runtime-dir`,
    };
  }
  return { check, status: "ok", detail: `${probe.runtimeDir} is writable` };
}

/** Where the engine's host has `path`, by the mount of this process's own container that holds it; undefined when none does. */
export function hostPathOf(path: string, mounts: readonly ContainerMount[]): string | undefined {
  const holding = mounts
    .filter((m) => path === m.destination || path.startsWith(`${m.destination.replace(/\/$/, "")}/`))
    .sort((a, b) => b.destination.length - a.destination.length)[0];
  return holding === undefined ? undefined : posix.join(holding.source, posix.relative(holding.destination, path));
}

/**
 * Whether the engine binds the Staging Directory this process writes. `ownMounts` are the mounts of
 * this process's own container, when the engine could say: the fix can then name the host's paths.
 */
export function stagingOnEngineCheck(
  probe: StagingProbe,
  place: Whereabouts,
  runtimeDir: string,
  ownMounts: readonly ContainerMount[] | undefined,
  imageMissing: boolean,
): DoctorCheck {
  const check = "staging on engine";
  const dir = probe.runtimeDir;
  const here = place.inContainer ? `this process runs in a container (${place.evidence})` : "";
  if (probe.ok) {
    return {
      check,
      status: "ok",
      detail: `a probe container read the file written into ${dir}: the engine binds it as this process sees it${here === "" ? "" : `, although ${here}`}`,
    };
  }
  if (probe.failure === "unwritable") return skip(check, "nothing to probe: the Staging Directory cannot be written");
  if (imageMissing) return skip(check, "the probe runs in the agent image, which is missing");
  switch (probe.failure) {
    case "not_on_engine":
    case "other_directory": {
      if (place.inContainer) {
        const hostStaging = ownMounts === undefined ? undefined : hostPathOf(dir, ownMounts);
        const hostRuntimeDir = ownMounts === undefined ? undefined : hostPathOf(runtimeDir, ownMounts);
        const fix =
          hostRuntimeDir === undefined
            ? `mount the host's directory at the same absolute path inside the orchestrator's container (-v X:X, X being its path on the engine's host), and give that path as --runtime-dir`
            : `mount the host directory at the same absolute path inside the orchestrator's container: -v ${hostRuntimeDir}:${hostRuntimeDir}, and run with --runtime-dir ${hostRuntimeDir}`;
        const seen = hostStaging === undefined ? "" : ` (this container's ${dir} is the host's ${hostStaging})`;
        return { check, status: "fail", detail: `${here}, and the engine resolves ${dir} on its own host to another directory${seen}: ${probe.error}`, fix };
      }
      return {
        check,
        status: "fail",
        detail: `the engine resolves ${dir} to another directory (it runs on another host, or in another mount namespace): ${probe.error}`,
        fix: "run agentcage on the engine's host, or give --runtime-dir a directory the engine's host has at the same absolute path",
      };
    }
    case "unreadable":
      return {
        check,
        status: "fail",
        detail: probe.error,
        fix: "let the agent's uid read what a Run stages: check the directory's modes and, on the engine's host, any security module (SELinux: label it container_file_t)",
      };
    default:
      return { check, status: "fail", detail: probe.error, fix: "see the engine check above; the probe needs a running engine and the agent image" };
  }
}

/**
 * Whether serve could keep a warm pool here (`--pool`, AGENTCAGE_POOL): it needs the agent image and
 * this process able to mount a tmpfs for each pooled container's out/ (the write bound "mount": root
 * on the engine's host). A failure only when a pool is asked for: without one, every Run starts cold
 * and nothing is wrong. `asked` is AGENTCAGE_POOL as set; `imagePresent` undefined when the engine does not answer.
 */
export function poolCheck(asked: string | undefined, canMount: boolean, imagePresent: boolean | undefined, maxSize: number): DoctorCheck {
  const check = "pool";
  // Empty is compose's default, as serve reads it: none.
  const size = asked === undefined || asked === "" ? 0 : asked.trim() === "" ? Number.NaN : Number(asked);
  if (!Number.isInteger(size) || size < 0 || size > maxSize) {
    return {
      check,
      status: "fail",
      detail: `AGENTCAGE_POOL ${JSON.stringify(asked)} is not a whole number from 0 to ${maxSize}, so serve would refuse it`,
      fix: "set AGENTCAGE_POOL to how many agent containers to keep started ahead, e.g. 2, or 0 for none",
    };
  }
  const mount = "this process can mount a tmpfs for each pooled container's out/";
  const noMount = "this process cannot mount a tmpfs for each pooled container's out/ (it is not root on the engine's host, or may not mount)";
  if (size === 0) {
    const could = canMount ? `one could be made here (${mount})` : `none could be made here: ${noMount}`;
    return { check, status: "ok", detail: `none asked for (serve --pool, AGENTCAGE_POOL), so every Run starts cold; ${could}` };
  }
  if (!canMount) {
    return {
      check,
      status: "fail",
      detail: `AGENTCAGE_POOL asks for ${size} pooled containers, and ${noMount}: serve would refuse to start`,
      fix: "run serve as root on the engine's host, or set AGENTCAGE_POOL=0 (the compose deployment's orchestrator is not root: leave it 0 there)",
    };
  }
  if (imagePresent === undefined) return skip(check, "the engine does not answer");
  if (!imagePresent) return skip(check, "the agent image is missing");
  return { check, status: "ok", detail: `a pool of ${size} can be made here: the agent image is present and ${mount}` };
}

export { skip as skippedCheck };

/** What this host's routes say of the Run networks' range (routesOfRange), and where they were read. */
export type RangeRoutes = { readonly hosts: readonly string[]; readonly engines: readonly string[] };

/**
 * Whether serve's Run networks (policy model, allowlist, open) can take subnets of their range:
 * `asked` is AGENTCAGE_RUN_NETWORK_RANGE as set (empty or unset: the default `range`), `refusal` why
 * serve would refuse it as written. A route of this host's own interfaces into a named range fails
 * (serve refuses it); into the default, every such Run would fail. An engine's network in it warns.
 */
export function runNetworkRangeCheck(
  asked: string | undefined,
  range: string,
  refusal: string | undefined,
  routes: RangeRoutes,
  inContainer: boolean,
): DoctorCheck {
  const check = "run network range";
  const named = asked !== undefined && asked !== "";
  const fix = "set AGENTCAGE_RUN_NETWORK_RANGE (serve --run-network-range) to a range no network of this host or its engine uses, e.g. a /16 of 10.0.0.0/8";
  if (refusal !== undefined) return { check, status: "fail", detail: refusal, fix };
  const which = named ? `${range} (AGENTCAGE_RUN_NETWORK_RANGE)` : `${range} (the default)`;
  const seen = inContainer ? "this container's routes (the engine's host may hold others)" : "this host's routes";
  const [host] = routes.hosts;
  if (host !== undefined) {
    return {
      check,
      status: named ? "fail" : "warn",
      detail: named
        ? `${which} overlaps the route to ${host}: serve would refuse it`
        : `${which} overlaps the route to ${host}: no Run under the model, allowlist or open policy could have a network of its own`,
      fix,
    };
  }
  const [engine] = routes.engines;
  if (engine !== undefined) {
    return {
      check,
      status: "warn",
      detail: `${which} overlaps the route to ${engine}: the engine refuses a Run's network there`,
      fix: `${fix}; or remove that network`,
    };
  }
  return { check, status: "ok", detail: `${which} overlaps none of ${seen}` };
}

/** One thing that makes a service less than it says, as GET /v1/service answers it (the fix and subject for an admin key alone). */
export type ServiceDegradation = {
  readonly kind: string;
  readonly subject?: string;
  readonly reason: string;
  readonly fix?: string;
  readonly stopsRuns: boolean;
  readonly since: string;
};

/** What the service answered (GET /v1/service), or why it did not. */
export type ServiceReport =
  | { readonly ok: true; readonly url: string; readonly version: string; readonly ready: boolean; readonly degraded: readonly ServiceDegradation[] }
  | { readonly ok: false; readonly url: string; readonly error: string };

/**
 * The running service (doctor --remote): one line when nothing is degraded, else one line for each
 * degradation with its fix, a failure when it stops every Run, a warning otherwise.
 */
export function serviceChecks(report: ServiceReport): DoctorCheck[] {
  if (!report.ok) {
    return [
      {
        check: "service",
        status: "fail",
        detail: report.error,
        fix: "start agentcage serve there, or name the one that runs with --remote (AGENTCAGE_URL) and its token (AGENTCAGE_TOKEN)",
      },
    ];
  }
  if (report.degraded.length === 0) {
    return [
      report.ready
        ? { check: "service", status: "ok", detail: `${report.url} (agentcage ${report.version}) is ready, and nothing is degraded` }
        : {
            check: "service",
            status: "fail",
            detail: `${report.url} is not ready: it cannot run an agent now`,
            fix: "see the engine and image checks above, and its /readyz",
          },
    ];
  }
  return report.degraded.map((one) => ({
    check: `service ${one.kind}${one.subject === undefined ? "" : ` ${one.subject}`}`,
    status: one.stopsRuns ? "fail" : "warn",
    detail: `${report.url}: ${one.reason} (since ${one.since})`,
    fix: one.fix ?? "an admin key reads the fix (GET /v1/service); ask the Operator",
  }));
}
