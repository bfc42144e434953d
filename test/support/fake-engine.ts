// An in-memory Engine for unit tests of the Run lifecycle, no daemon needed: each container plays
// a script (output, exit code, OOM, hanging, ignoring SIGTERM, the CPU time it has used, failing or
// silent engine calls), and
// the fake records every call in order, the stdin each container got and which containers remain.
// Stdout is a real PassThrough written with backpressure, so a reader that stops reading stalls it.
// What the engine says of itself, its images and a container's mounts is given in FakeEngineOptions.
// It builds no image (buildImage refuses); removeImage only records the call.

import { constants } from "node:os";
import { PassThrough, Readable, Writable } from "node:stream";
import type { ContainerMount, ContainerStreams, Engine, EngineFacts, ImageFacts } from "../../src/subpaths/runtime.js";

type Spec = Parameters<Engine["create"]>[0];
export type EngineOperation = keyof Engine;

/** How one engine call fails: rejects like dockerode (statusCode, json.message, or a socket `code`), or never answers. */
export type FakeFailure = "never" | { readonly statusCode?: number; readonly code?: string; readonly message?: string };

export type FakeContainerScript = {
  /** Written after start, stderr first; a string is UTF-8. */
  readonly stderr?: readonly (string | Uint8Array)[];
  readonly stdout?: readonly (string | Uint8Array)[];
  /** Once stdin has ended, write all of it to stdout. */
  readonly echoStdin?: boolean;
  /** Exit code once the script is done; default 0. */
  readonly exitCode?: number;
  readonly oomKilled?: boolean;
  /** After its output, runs until it is killed (or removed). */
  readonly hang?: boolean;
  /** SIGTERM does nothing; only SIGKILL ends it (137). Otherwise any signal ends it with 128 + n. */
  readonly ignoreSigterm?: boolean;
  /** After its output, the engine breaks its stream protocol with this reason: the outputs end, the agent runs on. */
  readonly breakStream?: string;
  /**
   * Output written while it runs: each entry is written `afterMs` after start (stdout unless said),
   * after the script's own output; a hanging script keeps running after the last one.
   */
  readonly timed?: readonly { readonly afterMs: number; readonly stdout?: string; readonly stderr?: string }[];
  /**
   * Its cumulative CPU time in ns as cpuUsage reads it, given the ms since it started and which
   * question this is (0 first). "hang" does not answer until the question is abandoned (its signal);
   * a throw (or a rejection) fails the call; a promise answers late. Default: 1 ms that never grows,
   * an idle agent.
   */
  readonly cpuNs?: (sinceStartMs: number, question: number) => number | "hang" | Promise<number>;
  /** Per-operation failures. A create that never answers still creates the container: the answer was lost. */
  readonly fail?: Partial<Record<EngineOperation, FakeFailure>>;
};

/** What the fake engine says of itself and holds; by default a healthy Docker Engine holding every image. */
export type FakeEngineOptions = {
  /** It tells each container's exit as an event (Engine.exitEvent, with its script's oomKilled), as Docker does; default: it has no such operation. */
  readonly exitEvents?: boolean;
  /** Merged over FAKE_ENGINE_FACTS. */
  readonly facts?: Partial<EngineFacts>;
  /** The images it holds, by reference (a container of another is refused, 404); default: every image, with FAKE_IMAGE_FACTS. */
  readonly images?: Readonly<Record<string, Partial<ImageFacts>>>;
  /** Labels of containers that are not the fake's own (the orchestrator's own container, say), by id or name. */
  readonly labels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Containers the fake did not create that listByLabel also finds (a deployment's other services). */
  readonly others?: ReadonlyArray<{ readonly id: string; readonly labels: Readonly<Record<string, string>>; readonly running: boolean }>;
  /** Mounts of containers that are not the fake's own (the orchestrator's own container, say), by id or name. */
  readonly mounts?: Readonly<Record<string, readonly ContainerMount[]>>;
  /** What getArchive answers (a tar archive's bytes) for a container (by name) and path; default: an empty archive. */
  readonly archive?: (container: string, path: string) => Uint8Array | Promise<Uint8Array>;
  /** Failures of the calls that concern no container. */
  readonly fail?: Partial<
    Record<
      | "ping"
      | "hasImage"
      | "facts"
      | "inspectImage"
      | "buildImage"
      | "removeImage"
      | "labelsOf"
      | "mountsOf"
      | "listByLabel"
      | "createNetwork"
      | "connectNetwork"
      | "removeNetwork"
      | "listNetworksByLabel"
      | "createVolume"
      | "removeVolume"
      | "listVolumesByLabel"
      | "getArchive"
      | "putArchive"
      | "exec",
      FakeFailure
    >
  >;
};

/** A Docker Engine whose runc has the fix for CVE-2024-21626, with gVisor registered beside it. */
export const FAKE_ENGINE_FACTS: EngineFacts = {
  name: "Docker Engine",
  serverVersion: "26.1.4",
  apiVersion: "1.45",
  os: "linux",
  arch: "amd64",
  kernelVersion: "6.1.0-21-amd64",
  operatingSystem: "Debian GNU/Linux 12 (bookworm)",
  defaultRuntime: "runc",
  runtimes: [{ name: "io.containerd.runc.v2" }, { name: "runc", path: "runc" }, { name: "runsc", path: "/usr/local/bin/runsc" }],
  components: [
    { name: "Engine", version: "26.1.4", detail: "de5c9cf" },
    { name: "containerd", version: "1.6.33", detail: "d2d58213f83a351ca8f528a95fbd145f5654e957" },
    { name: "runc", version: "1.1.12", detail: "v1.1.12-0-g51d5e94" },
    { name: "docker-init", version: "0.19.0", detail: "de40ad0" },
  ],
  securityOptions: ["name=seccomp,profile=builtin"],
  cgroupVersion: "2",
};

export const FAKE_IMAGE_FACTS: ImageFacts = {
  id: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  created: "2025-01-02T03:04:05Z",
  os: "linux",
  arch: "amd64",
  labels: {},
};

type FakeContainer = {
  readonly id: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly script: FakeContainerScript;
  readonly stdout: PassThrough;
  readonly stderr: PassThrough;
  readonly stdinChunks: Buffer[];
  stdinClosed: boolean;
  running: boolean;
  startedAt: number;
  cpuQuestions: number;
  exitCode: number | undefined;
  readonly exited: Promise<number>;
  readonly exit: (code: number) => void;
  readonly stdinEnded: Promise<void>;
  readonly endStdin: () => void;
  readonly broken: Promise<string>;
  readonly breakStream: (why: string) => void;
};

export type FakeEngine = Engine & {
  /** Every call in order: "create agentcage-<runId>", "attach fake-1", "kill fake-1 SIGTERM", "remove agentcage-<runId>", ... */
  readonly calls: string[];
  /** What a container (by id or name, removed or not) got on stdin, and whether stdin was closed. */
  readonly stdinOf: (idOrName: string) => { readonly bytes: Buffer; readonly closed: boolean } | undefined;
  /** Names of the containers that still exist. */
  readonly existing: () => string[];
  /** Networks that still exist, by name, with their members (container names or ids) and aliases. */
  readonly networks: () => ReadonlyMap<string, FakeNetwork>;
  /** Volumes that still exist, by name. */
  readonly volumes: () => ReadonlyMap<string, Parameters<Engine["createVolume"]>[0]>;
  /** The archives putArchive was given, in order: to which container and path, and their bytes. */
  readonly archivesPut: () => ReadonlyArray<{ readonly container: string; readonly path: string; readonly bytes: Buffer }>;
};

export type FakeNetwork = {
  readonly internal: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly members: Map<string, readonly string[]>;
  readonly subnet?: string;
};

const never = new Promise<never>(() => undefined);

function failure(op: string, f: Exclude<FakeFailure, "never">): Error {
  const message = f.message ?? (f.code !== undefined ? `connect ${f.code}` : `fake ${op} failed (HTTP ${f.statusCode ?? 500})`);
  return Object.assign(new Error(message), f.code === undefined ? { statusCode: f.statusCode ?? 500, json: { message } } : { code: f.code });
}

export function createFakeEngine(
  scripts: FakeContainerScript | ((spec: Spec, index: number) => FakeContainerScript) = {},
  options: FakeEngineOptions = {},
): FakeEngine {
  const calls: string[] = [];
  const all: FakeContainer[] = [];
  const live = new Map<string, FakeContainer>();
  const networks = new Map<string, FakeNetwork>();
  const volumes = new Map<string, Parameters<Engine["createVolume"]>[0]>();
  const put: Array<{ container: string; path: string; bytes: Buffer }> = [];
  const fallback = typeof scripts === "function" ? {} : scripts;
  const find = (idOrName: string): FakeContainer | undefined => all.find((c) => c.id === idOrName || c.name === idOrName);

  /** Logs the call, then applies the script's failure for it, if any. */
  async function enter(op: EngineOperation, args: string, c: FakeContainer | undefined): Promise<void> {
    calls.push(`${op} ${args}`);
    const f = (c?.script ?? fallback).fail?.[op] ?? (options.fail as Partial<Record<EngineOperation, FakeFailure>> | undefined)?.[op];
    if (f === "never") return never;
    if (f !== undefined) throw failure(op, f);
  }
  function need(id: string): FakeContainer {
    const c = live.get(id);
    if (c === undefined) throw failure("lookup", { statusCode: 404, message: `no such container: ${id}` });
    return c;
  }

  function make(spec: Spec, script: FakeContainerScript): FakeContainer {
    let exited!: (code: number) => void;
    let stdinEnded!: () => void;
    let broken!: (why: string) => void;
    const c: FakeContainer = {
      id: `fake-${all.length + 1}`,
      name: spec.name,
      labels: spec.labels,
      script,
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdinChunks: [],
      stdinClosed: false,
      running: false,
      startedAt: 0,
      cpuQuestions: 0,
      exitCode: undefined,
      exited: new Promise<number>((resolve) => (exited = resolve)),
      stdinEnded: new Promise<void>((resolve) => (stdinEnded = resolve)),
      broken: new Promise<string>((resolve) => (broken = resolve)),
      breakStream: (why) => {
        broken(why);
        c.stdout.end();
        c.stderr.end();
      },
      endStdin: () => {
        c.stdinClosed = true;
        stdinEnded();
      },
      exit: (code) => {
        if (c.exitCode !== undefined) return;
        c.running = false;
        c.exitCode = code;
        c.stdout.end();
        c.stderr.end();
        exited(code);
      },
    };
    all.push(c);
    live.set(c.id, c);
    return c;
  }

  /** Writes one chunk, waiting for 'drain' when the reader is full, unless the container exits first. */
  async function write(c: FakeContainer, stream: PassThrough, chunk: string | Uint8Array): Promise<void> {
    if (c.exitCode !== undefined || stream.writableEnded) return;
    if (!stream.write(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk)) {
      await Promise.race([new Promise((resolve) => stream.once("drain", resolve)), c.exited]);
    }
  }

  async function play(c: FakeContainer): Promise<void> {
    const s = c.script;
    for (const chunk of s.stderr ?? []) await write(c, c.stderr, chunk);
    for (const chunk of s.stdout ?? []) await write(c, c.stdout, chunk);
    if (s.echoStdin === true) {
      await Promise.race([c.stdinEnded, c.exited]);
      await write(c, c.stdout, Buffer.concat(c.stdinChunks));
    }
    for (const entry of s.timed ?? []) {
      const wait = entry.afterMs - (performance.now() - c.startedAt);
      if (wait > 0) await Promise.race([new Promise((resolve) => setTimeout(resolve, wait)), c.exited]);
      if (entry.stderr !== undefined) await write(c, c.stderr, entry.stderr);
      if (entry.stdout !== undefined) await write(c, c.stdout, entry.stdout);
    }
    if (s.breakStream !== undefined) return c.breakStream(s.breakStream);
    if (s.hang !== true) c.exit(s.exitCode ?? 0);
  }

  return {
    calls,
    stdinOf: (idOrName) => {
      const c = find(idOrName);
      return c === undefined ? undefined : { bytes: Buffer.concat(c.stdinChunks), closed: c.stdinClosed };
    },
    existing: () => [...live.values()].map((c) => c.name),
    networks: () => networks,
    volumes: () => volumes,
    archivesPut: () => put,

    create: async (spec) => {
      const script = typeof scripts === "function" ? scripts(spec, all.length) : scripts;
      calls.push(`create ${spec.name}`);
      const f = script.fail?.create;
      if (f === "never") {
        make(spec, script);
        return never;
      }
      if (f !== undefined) throw failure("create", f);
      if (options.images !== undefined && !(spec.image in options.images))
        throw failure("create", { statusCode: 404, message: `No such image: ${spec.image}` });
      return make(spec, script).id;
    },
    attach: async (id): Promise<ContainerStreams> => {
      await enter("attach", id, find(id));
      const c = need(id);
      const stdin = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          c.stdinChunks.push(Buffer.from(chunk));
          done();
        },
        final: (done) => {
          c.endStdin();
          done();
        },
      });
      const close = (): void => {
        stdin.destroy();
        c.endStdin();
        c.stdout.end();
        c.stderr.end();
      };
      return { stdin, stdout: c.stdout, stderr: c.stderr, close, broken: c.broken };
    },
    start: async (id) => {
      await enter("start", id, find(id));
      const c = need(id);
      c.running = true;
      c.startedAt = performance.now();
      void play(c);
    },
    wait: async (id) => {
      await enter("wait", id, find(id));
      return need(id).exited;
    },
    ...(options.exitEvents === true
      ? {
          exitEvent: async (id: string, signal: AbortSignal) => {
            await enter("exitEvent", id, find(id));
            const c = find(id);
            if (c === undefined) return undefined;
            const stopped = new Promise<undefined>((resolve) => {
              if (signal.aborted) resolve(undefined);
              signal.addEventListener("abort", () => resolve(undefined), { once: true });
            });
            const code = await Promise.race([c.exited, stopped]);
            return code === undefined ? undefined : { exitCode: code, oomKilled: c.script.oomKilled === true };
          },
        }
      : {}),
    inspect: async (id) => {
      await enter("inspect", id, find(id));
      const c = find(id);
      // Removed (by the Run or from outside): as the Docker engine's 404, no such container.
      if (c === undefined || !live.has(c.id)) return undefined;
      return { exitCode: c.exitCode ?? 0, oomKilled: c.exitCode !== undefined && c.script.oomKilled === true, running: c.running };
    },
    kill: async (id, signal) => {
      await enter("kill", `${id} ${signal}`, find(id));
      const c = live.get(id);
      if (c === undefined || !c.running) return;
      if (signal === "SIGKILL") c.exit(137);
      else if (!(signal === "SIGTERM" && c.script.ignoreSigterm === true)) c.exit(128 + (constants.signals[signal as NodeJS.Signals] ?? 15));
    },
    remove: async (idOrName) => {
      const c = find(idOrName);
      await enter("remove", idOrName, c);
      if (c === undefined || !live.has(c.id)) return;
      if (c.running) c.exit(137);
      live.delete(c.id);
    },
    ping: async () => {
      await enter("ping", "", undefined);
    },
    hasImage: async (image) => {
      await enter("hasImage", image, undefined);
      return options.images === undefined || image in options.images;
    },
    facts: async () => {
      await enter("facts", "", undefined);
      return { ...FAKE_ENGINE_FACTS, ...options.facts };
    },
    inspectImage: async (image) => {
      await enter("inspectImage", image, undefined);
      if (options.images === undefined) return FAKE_IMAGE_FACTS;
      const held = options.images[image];
      return held === undefined ? undefined : { ...FAKE_IMAGE_FACTS, ...held };
    },
    buildImage: async (spec) => {
      await enter("buildImage", spec.tag, undefined);
      throw failure("buildImage", { statusCode: 501, message: "the fake engine builds no images" });
    },
    removeImage: async (idOrTag) => {
      await enter("removeImage", idOrTag, undefined);
    },
    labelsOf: async (idOrName) => {
      const c = find(idOrName);
      await enter("labelsOf", idOrName, c);
      if (c !== undefined) return live.has(c.id) ? c.labels : undefined;
      return options.labels?.[idOrName];
    },
    mountsOf: async (idOrName) => {
      const c = find(idOrName);
      await enter("mountsOf", idOrName, c);
      if (c !== undefined) return live.has(c.id) ? [] : undefined;
      return options.mounts?.[idOrName];
    },
    cpuUsage: async (id, signal) => {
      const c = find(id);
      await enter("cpuUsage", id, c);
      if (c === undefined || !live.has(c.id) || !c.running) return undefined;
      const answer = (c.script.cpuNs ?? (() => 1_000_000))(performance.now() - c.startedAt, c.cpuQuestions++);
      if (answer !== "hang") return answer;
      return new Promise<never>((_, reject) => {
        const abandon = (): void => reject(Object.assign(new Error("The operation was aborted"), { name: "AbortError" }));
        if (signal?.aborted) abandon();
        else signal?.addEventListener("abort", abandon, { once: true });
      });
    },
    listByLabel: async (label) => {
      await enter("listByLabel", label, undefined);
      const [key = "", value] = label.split("=");
      return [
        ...[...live.values()].filter((c) => c.labels[key] === value).map((c) => ({ id: c.id, labels: c.labels, running: c.running })),
        ...(options.others ?? []).filter((c) => c.labels[key] === value),
      ];
    },
    createNetwork: async (spec) => {
      await enter("createNetwork", spec.name, undefined);
      if (networks.has(spec.name)) throw failure("createNetwork", { statusCode: 409, message: `network with name ${spec.name} already exists` });
      // As Docker refuses a range another network holds.
      if (spec.subnet !== undefined && [...networks.values()].some((held) => held.subnet === spec.subnet))
        throw failure("createNetwork", { statusCode: 403, message: "Pool overlaps with other one on this address space" });
      networks.set(spec.name, {
        internal: spec.internal,
        labels: spec.labels,
        members: new Map(),
        ...(spec.subnet === undefined ? {} : { subnet: spec.subnet }),
      });
      // The subnet asked for, else one /24 a network, as an engine's address pool hands them out.
      return { subnets: [spec.subnet ?? `10.99.${networks.size % 256}.0/24`] };
    },
    connectNetwork: async (network, container, aliases) => {
      await enter("connectNetwork", `${network} ${container}`, undefined);
      const held = networks.get(network);
      if (held === undefined) throw failure("connectNetwork", { statusCode: 404, message: `network ${network} not found` });
      held.members.set(container, aliases);
    },
    removeNetwork: async (name) => {
      await enter("removeNetwork", name, undefined);
      networks.delete(name);
    },
    listNetworksByLabel: async (label) => {
      await enter("listNetworksByLabel", label, undefined);
      const [key = "", value] = label.split("=");
      return [...networks.entries()].filter(([, n]) => n.labels[key] === value).map(([name, n]) => ({ name, labels: n.labels }));
    },
    createVolume: async (spec) => {
      await enter("createVolume", spec.name, undefined);
      if (volumes.has(spec.name)) throw failure("createVolume", { statusCode: 409, message: `volume ${spec.name} already exists` });
      volumes.set(spec.name, spec);
    },
    removeVolume: async (name) => {
      await enter("removeVolume", name, undefined);
      volumes.delete(name);
    },
    listVolumesByLabel: async (label) => {
      await enter("listVolumesByLabel", label, undefined);
      const [key = "", value] = label.split("=");
      return [...volumes.values()].filter((v) => v.labels[key] === value).map((v) => ({ name: v.name, labels: v.labels }));
    },
    getArchive: async (container, path) => {
      const c = find(container);
      await enter("getArchive", `${container} ${path}`, c);
      if (c === undefined || !live.has(c.id)) throw failure("getArchive", { statusCode: 404, message: `no such container: ${container}` });
      // An empty archive: two zero blocks.
      return Readable.from([Buffer.from(options.archive === undefined ? new Uint8Array(1024) : await options.archive(c.name, path))]);
    },
    putArchive: async (container, path, archive) => {
      const c = find(container);
      await enter("putArchive", `${container} ${path}`, c);
      if (c === undefined || !live.has(c.id)) throw failure("putArchive", { statusCode: 404, message: `no such container: ${container}` });
      const chunks: Buffer[] = [];
      for await (const chunk of archive) chunks.push(Buffer.from(chunk as Uint8Array));
      put.push({ container: c.name, path, bytes: Buffer.concat(chunks) });
    },
    exec: async (container, argv) => {
      const c = find(container);
      await enter("exec", `${container} ${argv.join(" ")}`, c);
      if (c === undefined || !live.has(c.id)) throw failure("exec", { statusCode: 404, message: `no such container: ${container}` });
      // Nothing runs in a fake container: the engine's own refusal of an exec it cannot start.
      throw failure("exec", { statusCode: 500, message: "the fake engine runs no program in a container" });
    },
  };
}

/** An engine nothing answers for: every call rejects as a refused socket connection does. */
export function createUnreachableEngine(): FakeEngine {
  const refused: FakeFailure = { code: "ECONNREFUSED" };
  const ops: EngineOperation[] = [
    "create",
    "attach",
    "start",
    "wait",
    "inspect",
    "kill",
    "remove",
    "listByLabel",
    "ping",
    "hasImage",
    "facts",
    "inspectImage",
    "buildImage",
    "removeImage",
    "labelsOf",
    "mountsOf",
    "cpuUsage",
    "createNetwork",
    "connectNetwork",
    "removeNetwork",
    "listNetworksByLabel",
    "createVolume",
    "removeVolume",
    "listVolumesByLabel",
    "getArchive",
    "putArchive",
    "exec",
  ];
  return createFakeEngine({ fail: Object.fromEntries(ops.map((op) => [op, refused])) });
}
