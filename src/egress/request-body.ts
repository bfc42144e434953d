// Reading a model call's body into memory, which the proxy must do to inspect it before it goes
// upstream: bounded per request, per Run and for the whole proxy, counted as the bytes arrive, so
// one Run's large or many bodies are refused before they can take the proxy's memory from the
// others. Invariant: what a read holds is released exactly once, however the read ends.

import type { IncomingMessage } from "node:http";
import { MAX_HELD_REQUEST_BYTES, MAX_REQUEST_BODY_BYTES, MAX_RUN_HELD_REQUEST_BYTES } from "./limits.js";

/** Bytes held by reads in progress or bodies not yet sent on: one for each Run, one for the proxy. */
export type HeldBytes = { held: number };

export type BodyRead =
  | { readonly kind: "read"; readonly body: Buffer; readonly release: () => void }
  /** Which bound the body passed: the request's own, its Run's, or the proxy's. */
  | { readonly kind: "too_large"; readonly bound: "request" | "run" | "proxy"; readonly limit: number }
  | { readonly kind: "gone" };

/** Reads `req`'s body whole, counting it against the Run's and the proxy's held bytes until `release`. */
export function readHeldBody(req: IncomingMessage, run: HeldBytes, proxy: HeldBytes): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      run.held -= size;
      proxy.held -= size;
      chunks.length = 0;
    };
    const stop = (answer: BodyRead): void => {
      req.removeListener("data", onData);
      release();
      // The rest is read and dropped, so the refusal can still be answered on this connection.
      req.resume();
      resolve(answer);
    };
    const onData = (chunk: Buffer): void => {
      const bound =
        size + chunk.length > MAX_REQUEST_BODY_BYTES
          ? ({ bound: "request", limit: MAX_REQUEST_BODY_BYTES } as const)
          : run.held + chunk.length > MAX_RUN_HELD_REQUEST_BYTES
            ? ({ bound: "run", limit: MAX_RUN_HELD_REQUEST_BYTES } as const)
            : proxy.held + chunk.length > MAX_HELD_REQUEST_BYTES
              ? ({ bound: "proxy", limit: MAX_HELD_REQUEST_BYTES } as const)
              : undefined;
      if (bound !== undefined) {
        stop({ kind: "too_large", ...bound });
        return;
      }
      size += chunk.length;
      run.held += chunk.length;
      proxy.held += chunk.length;
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => {
      if (released) return;
      resolve({ kind: "read", body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks), release });
    });
    req.once("error", () => stop({ kind: "gone" }));
    req.once("close", () => {
      if (!req.complete && !released) stop({ kind: "gone" });
    });
  });
}
