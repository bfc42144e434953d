// A pool of worker threads that each run one synchronous program: requests go to the least busy
// worker, an idle worker never keeps the process alive, and one that died is replaced at the next
// request. The program is a function whose text is eval'd in each worker, so it needs no file of
// its own (compiled or not) and can close over nothing of this module. A handler may post parts of
// its answer while it works: they reach the caller in order, all before its answer.

import { Worker } from "node:worker_threads";

export type WorkerPool<Request, Response, Part = never> = {
  /**
   * Hands `request` to a worker; resolves with what its handler returned, rejects with what it
   * threw. `onPart` is called with each part the handler posted, in order, before it resolves.
   */
  readonly run: (request: Request, onPart?: (part: Part) => void) => Promise<Response>;
};

type Pending = { readonly resolve: (response: never) => void; readonly reject: (error: Error) => void; readonly onPart: ((part: never) => void) | undefined };
type PoolWorker = { readonly worker: Worker; readonly pending: Map<number, Pending> };
type Reply = {
  readonly id: number;
  readonly part?: unknown;
  readonly response?: unknown;
  readonly error?: { readonly message: string; readonly code?: string };
};

/**
 * `program` runs once in each worker and returns its handler: a synchronous function from one
 * request to its response that uses only node's own modules (through `require`), and may hand
 * `post` parts of its answer on the way. Workers start at the first request.
 */
export function createWorkerPool<Request, Response, Part = never>(
  name: string,
  size: number,
  program: () => (request: Request, post: (part: Part) => void) => Response,
): WorkerPool<Request, Response, Part> {
  const source = `
    const handle = (${program.toString()})();
    const { parentPort } = require("node:worker_threads");
    parentPort.on("message", ({ id, request }) => {
      let reply;
      try {
        reply = { id, response: handle(request, (part) => parentPort.postMessage({ id, part })) };
      } catch (error) {
        reply = { id, error: { message: String(error && error.message ? error.message : error), code: error && error.code } };
      }
      parentPort.postMessage(reply);
    });`;
  let workers: PoolWorker[] = [];
  let nextId = 0;

  const start = (count: number): PoolWorker[] =>
    Array.from({ length: count }, () => {
      const worker = new Worker(source, { eval: true, name });
      const entry: PoolWorker = { worker, pending: new Map() };
      worker.on("message", (reply: Reply) => {
        const pending = entry.pending.get(reply.id);
        if ("part" in reply) {
          pending?.onPart?.(reply.part as never);
          return;
        }
        entry.pending.delete(reply.id);
        if (entry.pending.size === 0) worker.unref();
        if (reply.error === undefined) pending?.resolve(reply.response as never);
        else pending?.reject(Object.assign(new Error(reply.error.message), reply.error.code === undefined ? {} : { code: reply.error.code }));
      });
      const fail = (error: Error): void => {
        for (const pending of entry.pending.values()) pending.reject(error);
        entry.pending.clear();
        workers = workers.filter((w) => w !== entry);
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`a ${name} worker exited (code ${code})`)));
      worker.unref();
      return entry;
    });

  return {
    run(request, onPart) {
      // The first request starts them all; a later one replaces any that died.
      if (workers.length < size) workers = [...workers, ...start(size - workers.length)];
      const target = workers.reduce((best, w) => (w.pending.size < best.pending.size ? w : best), workers[0] as PoolWorker);
      const id = nextId++;
      return new Promise<Response>((resolve, reject) => {
        target.pending.set(id, { resolve: resolve as (response: never) => void, reject, onPart: onPart as ((part: never) => void) | undefined });
        target.worker.ref();
        target.worker.postMessage({ id, request });
      });
    },
  };
}
