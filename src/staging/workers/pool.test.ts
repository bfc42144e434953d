// The worker pool with real worker threads: a handler's answer, the parts it posted and its error
// come back to the request that caused them, and a worker that dies fails only its own requests and
// is replaced.

import { describe, expect, it } from "vitest";
import { createWorkerPool } from "./index.js";

type Ask = { readonly op: "double" | "throw" | "exit"; readonly n: number };

const program = () => (ask: Ask) => {
  if (ask.op === "throw") throw Object.assign(new Error(`no ${ask.n}`), { code: "ENOPE" });
  if (ask.op === "exit") process.exit(3);
  return ask.n * 2;
};

describe("a worker pool", () => {
  it("answers each request with its own handler's result, many at once", async () => {
    const pool = createWorkerPool<Ask, number>("agentcage-test", 2, program);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => pool.run({ op: "double", n })));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, n) => n * 2));
  });

  it("hands the caller each part a handler posted, in order, all before its answer", async () => {
    const pool = createWorkerPool<number, string, number>("agentcage-test", 2, () => (count: number, post: (part: number) => void) => {
      for (let part = 0; part < count; part += 1) post(part);
      return "done";
    });
    const seen: Array<number | string> = [];
    const [first, second] = await Promise.all([
      pool
        .run(500, (part) => seen.push(part))
        .then((answer) => {
          seen.push(answer);
          return seen.length;
        }),
      pool.run(3),
    ]);
    expect(seen).toEqual([...Array.from({ length: 500 }, (_, n) => n), "done"]);
    expect([first, second]).toEqual([501, "done"]);
  });

  it("rejects a request whose handler threw, with its message and code, and goes on answering", async () => {
    const pool = createWorkerPool<Ask, number>("agentcage-test", 1, program);
    await expect(pool.run({ op: "throw", n: 7 })).rejects.toMatchObject({ message: "no 7", code: "ENOPE" });
    expect(await pool.run({ op: "double", n: 4 })).toBe(8);
  });

  it("fails the request of a worker that died, and replaces the worker at the next request", async () => {
    const pool = createWorkerPool<Ask, number>("agentcage-test", 1, program);
    await expect(pool.run({ op: "exit", n: 0 })).rejects.toThrow(/agentcage-test worker exited \(code 3\)/);
    expect(await pool.run({ op: "double", n: 21 })).toBe(42);
  });
});
