// A Docker engine of a test's own: a `dockerd` with its own data root, exec root, pidfile and socket
// under a temporary directory, in a network namespace of its own (`ip netns add`), so it touches
// neither the host's engine nor its bridge. Storage is vfs unless asked: the test image is small, and
// a daemon killed with SIGKILL leaves no overlay mount behind. Invariant: remove() leaves no process of it,
// no namespace and no directory, whatever state the daemon is in.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { TEST_IMAGE } from "./engine.js";

export type ExtraEngine = {
  readonly name: string;
  /** Its network namespace (`ip netns`), for a test that wires a link into it. */
  readonly namespace: string;
  /** `unix://...`, as `docker -H` and the engine address take it. */
  readonly address: string;
  /** Starts the daemon (again) and waits until it answers. */
  readonly start: () => Promise<void>;
  /** Kills the daemon's own process at once (SIGKILL): it stops answering, its containers' processes stay. */
  readonly kill: () => Promise<void>;
  /** Stops the daemon politely (SIGTERM): it stops its containers first. */
  readonly stop: () => Promise<void>;
  /** Freezes the daemon's own process (SIGSTOP): alive but silent, as on a machine too busy to answer; its socket still takes connections. */
  readonly pause: () => void;
  /** Lets a paused daemon go on (SIGCONT): it answers what it was asked meanwhile. */
  readonly resume: () => void;
  /** The `docker` command against this engine. */
  readonly docker: (...args: string[]) => string;
  /** Stops the daemon, kills whatever is left in its namespace, removes the namespace and the directory. */
  readonly remove: () => Promise<void>;
};

// A dockerd answers in 1-5 s on an idle machine (a restart after a kill recovers its containers
// first); a loaded CI host has taken over 30 s. Waiting longer only delays a failure.
const ANSWER_WAIT_MS = 90_000;

/**
 * `storage`: the daemon's storage driver. vfs (the default) suits the small test image; overlay2
 * loads the agent's and the proxy's images in seconds where vfs copies each layer whole (minutes,
 * gigabytes), and a killed daemon's overlay mounts are unmounted by remove().
 */
export function extraEngine(
  root: string,
  name: string,
  storage: "vfs" | "overlay2" = "vfs",
  /** More of dockerd's flags, such as a TLS listener's (tls-engine.ts). */
  daemonArgs: readonly string[] = [],
): ExtraEngine {
  const dir = join(root, name);
  const socket = join(dir, "docker.sock");
  const address = `unix://${socket}`;
  const namespace = `${name}-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  execFileSync("ip", ["netns", "add", namespace]);
  execFileSync("ip", ["netns", "exec", namespace, "ip", "link", "set", "lo", "up"]);
  let daemon: ChildProcess | undefined;
  const docker = (...args: string[]): string =>
    execFileSync("docker", ["-H", address, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const exited = (child: ChildProcess): Promise<void> =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));

  // What a killed daemon left in its namespace (its containerd, the shims): every process there is this test's.
  const killLeftovers = (): void => {
    let left: string[] = [];
    try {
      left = execFileSync("ip", ["netns", "pids", namespace], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.trim() !== "");
    } catch {
      // no namespace, no process
    }
    for (const pid of left) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone already
      }
    }
  };
  const logFile = join(dir, "dockerd.log");

  const start = async (): Promise<void> => {
    // Started again after a kill: what the killed daemon left (its containerd, a Run's shim, its pid
    // file) would stand in the new one's way, as a host's reboot would have cleared them. Its
    // containers stay in its data root, for the new daemon to list.
    if (daemon !== undefined) {
      killLeftovers();
      rmSync(join(dir, "docker.pid"), { force: true });
      // Its exec root is its run state (/run on a host), which a reboot clears: the containerd of a
      // killed dockerd 20.10 left there keeps a new one from starting ("timeout waiting for containerd").
      unmountBelow(join(dir, "exec"));
      rmSync(join(dir, "exec"), { recursive: true, force: true });
    }
    const log = openSync(logFile, "a");
    // nsenter joins the network namespace only: the daemon shares this host's mounts (a Run's bind mounts, its tmpfs).
    daemon = spawn(
      "nsenter",
      [
        `--net=/var/run/netns/${namespace}`,
        "dockerd",
        "--data-root",
        join(dir, "data"),
        "--exec-root",
        join(dir, "exec"),
        "--pidfile",
        join(dir, "docker.pid"),
        "-H",
        address,
        "--storage-driver",
        storage,
        "--bridge=none",
        "--iptables=false",
        "--ip6tables=false",
        "--ip-masq=false",
        "--shutdown-timeout",
        "2",
        ...daemonArgs,
      ],
      { stdio: ["ignore", log, log] },
    );
    closeSync(log);
    const deadline = Date.now() + ANSWER_WAIT_MS;
    while (Date.now() < deadline) {
      try {
        docker("version", "--format", "{{.Server.Version}}");
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const said = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-20).join("\n") : "";
    throw new Error(`the test's engine ${name} did not answer within ${ANSWER_WAIT_MS} ms; the end of its log:\n${said}`);
  };
  const signal = async (which: NodeJS.Signals): Promise<void> => {
    const child = daemon;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const gone = exited(child);
    child.kill(which);
    await gone;
  };
  return {
    name,
    namespace,
    address,
    start,
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
    pause: () => void daemon?.kill("SIGSTOP"),
    resume: () => void daemon?.kill("SIGCONT"),
    docker,
    remove: async () => {
      // A paused daemon would not hear its SIGTERM.
      daemon?.kill("SIGCONT");
      await signal("SIGTERM").catch(() => undefined);
      killLeftovers();
      try {
        execFileSync("ip", ["netns", "delete", namespace], { stdio: "ignore" });
      } catch {
        // never made, or gone already
      }
      // A killed daemon leaves its mounts (its data root's bind, its containers' namespaces).
      unmountBelow(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Unmounts, deepest first, whatever is mounted at or below `dir`. */
function unmountBelow(dir: string): void {
  const mounts = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of mounts) execFileSync("umount", ["--lazy", point], { stdio: "ignore" });
}

/** Gives an engine of the test's own the test image (it has none): `docker save | docker -H ... load`. */
export function loadTestImage(engine: ExtraEngine): void {
  loadImage(engine, TEST_IMAGE);
}

/** Gives an engine of the test's own an image of this host's engine (the agent's, the egress proxy's). */
export function loadImage(engine: ExtraEngine, image: string): void {
  execFileSync("sh", ["-c", `docker save "$IMAGE" | docker -H "$ENGINE" load`], {
    stdio: "ignore",
    env: { ...process.env, ENGINE: engine.address, IMAGE: image },
  });
}
