// Catches a container the moment the engine starts it, to stand a slow start or a dead one in for
// load: the Engine API's event stream, filtered to containers the test alone makes (its own image
// tag or label), and a pause, unpause or kill sent over the same socket, within milliseconds.
// The engine is the real one; nothing of the project's own engine code is used or replaced.

import { writeFile } from "node:fs/promises";
import { request } from "node:http";

const SOCKET = (process.env["DOCKER_HOST"] ?? "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");

/** One Engine API call over the socket; resolves with its status and body. */
export function engineCall(method: string, path: string): Promise<{ readonly status: number; readonly body: string }> {
  return new Promise((resolve, reject) => {
    const call = request({ socketPath: SOCKET, method, path }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    call.on("error", reject);
    call.end();
  });
}

export type StartWatch = {
  /** Resolves with the id of the first container started that matches, once `act` was sent to it. */
  readonly caught: Promise<string>;
  readonly stop: () => void;
};

/**
 * Watches for the first container the engine starts that matches `filters` (the Engine API's event
 * filters: `{ image: [tag] }`, `{ label: ["k=v"] }`), and at once sends it `act` ("pause", "kill"),
 * or nothing ("none").
 */
export function atStart(filters: Readonly<Record<string, readonly string[]>>, act: "pause" | "kill" | "none"): StartWatch {
  const query = encodeURIComponent(JSON.stringify({ ...filters, type: ["container"], event: ["start"] }));
  let stop = (): void => undefined;
  const caught = new Promise<string>((resolve, reject) => {
    const call = request({ socketPath: SOCKET, method: "GET", path: `/events?filters=${query}` }, (response) => {
      let buffered = "";
      response.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const line = buffered.split("\n")[0] ?? "";
        if (!buffered.includes("\n")) return;
        const id = (JSON.parse(line) as { id: string }).id;
        call.destroy();
        if (act === "none") {
          resolve(id);
          return;
        }
        engineCall("POST", `/containers/${id}/${act}`).then(({ status, body }) => {
          if (status >= 300) reject(new Error(`${act} of ${id} answered ${status}: ${body}`));
          else resolve(id);
        }, reject);
      });
    });
    call.on("error", (error) => {
      if (!call.destroyed) reject(error);
    });
    call.end();
    stop = () => call.destroy();
  });
  caught.catch(() => undefined);
  return { caught, stop };
}

/** How long the engine may take to answer about a paused container before its cgroup is thawed by hand. */
const ENGINE_ANSWER_MS = 10_000;

/**
 * Unpauses a container paused by atStart. An exec the engine began just as the container froze
 * (runc's init joins the frozen cgroup and waits there) holds the container in the engine until it
 * thaws, so the engine answers nothing about it, its unpause included: then its cgroup is thawed by
 * hand (cgroup v1's freezer, or v2's cgroup.freeze) until the exec has ended, and frozen again, so
 * that the engine's own unpause finds it paused as it left it.
 */
export async function unpause(id: string): Promise<void> {
  const inspected = engineCall("GET", `/containers/${id}/json`);
  const answered = await Promise.race([inspected.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ENGINE_ANSWER_MS))]);
  if (!answered) {
    await freeze(id, false);
    await inspected;
    await freeze(id, true);
  }
  const { status, body } = await engineCall("POST", `/containers/${id}/unpause`);
  if (status >= 300) throw new Error(`unpause of ${id} answered ${status}: ${body}`);
}

/** Freezes or thaws the container's cgroup by hand, under cgroup v1 or v2. */
async function freeze(id: string, frozen: boolean): Promise<void> {
  const ways: ReadonlyArray<readonly [string, string]> = [
    [`/sys/fs/cgroup/freezer/docker/${id}/freezer.state`, frozen ? "FROZEN" : "THAWED"],
    [`/sys/fs/cgroup/system.slice/docker-${id}.scope/cgroup.freeze`, frozen ? "1" : "0"],
  ];
  for (const [path, value] of ways) {
    if (
      await writeFile(path, value).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  throw new Error(
    `the engine answered nothing about the paused ${id} within ${ENGINE_ANSWER_MS} ms, and its cgroup could not be ${frozen ? "frozen" : "thawed"} by hand`,
  );
}

/** Waits `ms` while a container is held paused, or throws at once what `starting` failed with meanwhile. */
export async function pausedFor(ms: number, starting: Promise<unknown>): Promise<void> {
  const failed = starting.then(
    () => new Promise<never>(() => undefined),
    (error: unknown) => Promise.reject(error),
  );
  await Promise.race([new Promise((resolve) => setTimeout(resolve, ms)), failed]);
}

/** Every container, running or not, created from exactly this image reference (a tag of the test's own; `ancestor=` would match every tag of the same image). */
export async function containersOfImage(reference: string): Promise<string[]> {
  const { body } = await engineCall("GET", `/containers/json?all=true`);
  return (JSON.parse(body) as Array<{ Id: string; Image: string }>).filter((c) => c.Image === reference).map((c) => c.Id);
}

/** Every container, running or not, that carries this label (`key=value`). */
export async function containersWithLabel(label: string): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [label] }));
  const { body } = await engineCall("GET", `/containers/json?all=true&filters=${filters}`);
  return (JSON.parse(body) as Array<{ Id: string }>).map((c) => c.Id);
}
