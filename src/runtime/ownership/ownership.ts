// Who may end a Run, and until when: every container and Run directory carries its runtime's
// session, the host, the pid and that process's start time, and the Run's deadline. The one place
// that decides what a sweep may remove: (a) this session's own that no live Run holds, (b) anything
// past its deadline, (c) what a process on this host left when it is gone. Never a live Run of
// another live process, whatever the owner.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export const SESSION_LABEL = "agentcage.session";
export const HOST_LABEL = "agentcage.host";
export const PID_LABEL = "agentcage.pid";
export const PID_START_LABEL = "agentcage.pid-start";
export const DEADLINE_LABEL = "agentcage.deadline";

/** Who started a Run and until when it may live; all strings, as labels and run.json carry them. */
export type Ownership = {
  readonly session: string;
  readonly host: string;
  readonly pid: string;
  /** The process's start time as the kernel counts it (clock ticks since boot on Linux); "" where unknown. */
  readonly pidStart: string;
  /** Epoch milliseconds after which the Run is over whatever its process says. */
  readonly deadline: string;
};

/** This process as the ownership records name it. */
export type ProcessIdentity = Pick<Ownership, "host" | "pid" | "pidStart">;

/**
 * A runtime's session: one per runtime (or egress gateway) this process made, in every label and
 * Run record it writes as `session`. Not an agent's session, which lives in a Session Store; the
 * stored name stays `session` because containers and Run directories already carry it.
 */
export function newRuntimeSessionId(): string {
  return randomBytes(8).toString("hex");
}

export function thisProcess(): ProcessIdentity {
  return { host: hostname(), pid: String(process.pid), pidStart: processStart(process.pid) ?? "" };
}

/** A process's start time in clock ticks since boot (Linux /proc); undefined when it is not running or cannot be read. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

export function ownershipLabels(o: Ownership): Record<string, string> {
  return { [SESSION_LABEL]: o.session, [HOST_LABEL]: o.host, [PID_LABEL]: o.pid, [PID_START_LABEL]: o.pidStart, [DEADLINE_LABEL]: o.deadline };
}

export function ownershipFromLabels(labels: Readonly<Record<string, string>>): Partial<Ownership> {
  const pick = (key: string) => labels[key];
  return Object.fromEntries(
    Object.entries({
      session: pick(SESSION_LABEL),
      host: pick(HOST_LABEL),
      pid: pick(PID_LABEL),
      pidStart: pick(PID_START_LABEL),
      deadline: pick(DEADLINE_LABEL),
    }).filter(([, value]) => value !== undefined),
  ) as Partial<Ownership>;
}

export type SweepContext = {
  readonly session: string;
  readonly me: ProcessIdentity;
  /** Whether a Run of this process is under way. */
  readonly isLive: (runId: string) => boolean;
  readonly now: number;
  /** Whether the process `pid` with start time `pidStart` still runs here; default: /proc. */
  readonly processAlive?: (pid: number, pidStart: string) => boolean;
};

/** Why a sweep may remove what this Run left, or undefined when it must leave it alone. */
export function orphanedBecause(runId: string, o: Partial<Ownership>, ctx: SweepContext): string | undefined {
  if (ctx.isLive(runId)) return undefined;
  if (o.session === undefined) return "it predates ownership records";
  if (o.session === ctx.session) return "it is this session's and no Run of it is live";
  const deadline = Number(o.deadline);
  if (Number.isFinite(deadline) && ctx.now > deadline) return "its deadline has passed";
  if (o.host === ctx.me.host && o.pid !== undefined) {
    // Our own process, another runtime in it: its Run is not live, so nothing will finish it.
    if (o.pid === ctx.me.pid && o.pidStart === ctx.me.pidStart) return "its runtime in this process has no live Run of it";
    const alive = ctx.processAlive ?? defaultProcessAlive;
    if (!alive(Number(o.pid), o.pidStart ?? "")) return "the process that started it is gone";
  }
  return undefined;
}

function defaultProcessAlive(pid: number, pidStart: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const start = processStart(pid);
  if (start !== undefined) return pidStart === "" || start === pidStart;
  // No /proc (not Linux): ask the kernel whether the pid exists at all.
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
