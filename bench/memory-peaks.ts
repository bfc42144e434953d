// Peak memory while a bench runs: a process of its own (by pid, or this one) and the engine's
// (dockerd, containerd and the containers' shims), sampled twice a second; read from /proc.

import { readdir, readFile } from "node:fs/promises";

const SAMPLE_EVERY_MS = 500;

/** RSS in bytes of every process by its command name (/proc/<pid>/comm), summed per name. */
async function rssByName(names: readonly string[]): Promise<Record<string, number>> {
  const sums: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const comm = (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
      if (!(comm in sums)) continue;
      sums[comm] = (sums[comm] ?? 0) + (await rssOf(Number(pid)));
    } catch {
      // The process ended while it was read.
    }
  }
  return sums;
}

/** RSS in bytes of one process; 0 once it has ended. */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** Peaks of `pid`'s RSS (default this process's) and the engine's (dockerd, containerd, and the shims of the containers), sampled. */
export function memoryPeaks(pid?: number) {
  const peak = { self: 0, dockerd: 0, containerd: 0, shims: 0 };
  const start = { dockerd: 0, containerd: 0, shims: 0 };
  let first = true;
  const sample = async (): Promise<void> => {
    peak.self = Math.max(peak.self, pid === undefined ? process.memoryUsage().rss : await rssOf(pid));
    const rss = await rssByName(["dockerd", "containerd", "containerd-shim"]);
    const now = { dockerd: rss["dockerd"] ?? 0, containerd: rss["containerd"] ?? 0, shims: rss["containerd-shim"] ?? 0 };
    if (first) Object.assign(start, now);
    first = false;
    peak.dockerd = Math.max(peak.dockerd, now.dockerd);
    peak.containerd = Math.max(peak.containerd, now.containerd);
    peak.shims = Math.max(peak.shims, now.shims);
  };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const loop = (): void => {
    // A sample under way when stop() comes must not schedule another: the process would never exit.
    if (stopped) return;
    timer = setTimeout(() => void sample().then(loop), SAMPLE_EVERY_MS);
  };
  return {
    start: async () => {
      await sample();
      loop();
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await sample();
      return { peak, start };
    },
  };
}
