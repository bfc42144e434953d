// Where an answer meets a caller's output schema: in a worker thread of its own, never on the
// service's event loop, since a caller's `pattern` can backtrack for minutes on a short answer.
// The check either ends within its bound or the worker is terminated, and the pattern it was
// running is named. Invariant: no caller's regular expression runs on the main thread.

import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { ErrorObject } from "ajv";

export type BoundedValidation =
  | { readonly valid: true }
  | { readonly valid: false; readonly errors: readonly ErrorObject[] }
  /** The bound passed; `pattern` is the one that was running then, when a pattern was. */
  | { readonly timedOut: true; readonly pattern?: string };

const require = createRequire(import.meta.url);
// The worker loads the same ajv as this process, by absolute path: it runs from no file of its own.
const MODULES = { ajv: require.resolve("ajv"), ajv2020: require.resolve("ajv/dist/2020.js"), formats: require.resolve("ajv-formats") };

// CommonJS, run with `eval`: each pattern ajv makes is wrapped so that the index of the one being
// tested is in shared memory (readable while this thread is stuck in it) and its source was posted
// before its first test.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { modules, schema, dialect, value, running } = workerData;
const current = new Int32Array(running);
const patterns = [];
const regExp = (pattern, flags) => {
  const compiled = new RegExp(pattern, flags);
  const index = patterns.push(pattern);
  parentPort.postMessage({ pattern, index });
  return {
    test: (text) => {
      Atomics.store(current, 0, index);
      const matched = compiled.test(text);
      Atomics.store(current, 0, 0);
      return matched;
    },
    toString: () => String(compiled),
  };
};
const Ajv = dialect === "2020-12" ? require(modules.ajv2020).Ajv2020 : require(modules.ajv).Ajv;
const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp } });
require(modules.formats).default(ajv);
const validate = ajv.compile(schema);
const valid = validate(value);
parentPort.postMessage({ done: true, valid, errors: valid ? [] : validate.errors });
`;

/** Validates `value` against `schema` in a worker; gives up after `timeoutMs`, terminating it. */
export function validateBounded(schema: unknown, dialect: "draft-07" | "2020-12", value: unknown, timeoutMs: number): Promise<BoundedValidation> {
  const running = new SharedArrayBuffer(4);
  const current = new Int32Array(running);
  const patterns = new Map<number, string>();
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modules: MODULES, schema, dialect, value, running } });
    let settled = false;
    const settle = (answer: BoundedValidation | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    const timer = setTimeout(() => {
      const pattern = patterns.get(Atomics.load(current, 0));
      settle(pattern === undefined ? { timedOut: true } : { timedOut: true, pattern });
    }, timeoutMs);
    worker.on("message", (message: { pattern: string; index: number } | { done: true; valid: boolean; errors: ErrorObject[] }) => {
      if ("pattern" in message) patterns.set(message.index, message.pattern);
      else settle(message.valid ? { valid: true } : { valid: false, errors: message.errors });
    });
    worker.on("error", (error) => settle(error));
    worker.on("exit", (code) => settle(new Error(`the output schema's check ended before it answered (its worker exited with code ${code})`)));
  });
}
