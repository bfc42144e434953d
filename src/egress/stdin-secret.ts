// The control secret read from the proxy's stdin: the first line, bounded in size and time. The
// runtime writes it there over the engine's attach when no disk is shared with the proxy, so it is in
// no argv, no variable and no `docker inspect`; a secret file (a compose secret) is the other way.

import type { Readable } from "node:stream";
import { describeBound, patientTimer } from "../liveness/index.js";
import { MAX_CONTROL_SECRET_BYTES, STDIN_SECRET_WAIT_MS } from "./limits.js";
import { EgressArgumentError } from "./run.js";

/**
 * Resolves with the first line of `input` (or all of it, when it ends first), trimmed; stops reading
 * it after. `waitMs` is an idle machine's bound, stretched by the load (a busy host starts us slowly).
 */
export function readSecretLine(input: Readable, variable: string, waitMs: number = STDIN_SECRET_WAIT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const finish = (error?: Error): void => {
      timer.cancel();
      input.off("data", onData);
      input.off("end", onEnd);
      input.off("error", onError);
      input.pause();
      if (error !== undefined) reject(error);
      else resolve(text.split("\n")[0]?.trim() ?? "");
    };
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      if (text.includes("\n")) finish();
      else if (text.length > MAX_CONTROL_SECRET_BYTES)
        finish(
          new EgressArgumentError(
            `${variable} is set, and stdin holds no line within ${MAX_CONTROL_SECRET_BYTES} bytes; write the control secret and a newline on stdin`,
          ),
        );
    };
    const onEnd = (): void => finish();
    const onError = (error: Error): void =>
      finish(new EgressArgumentError(`${variable} is set, and stdin cannot be read (${error.message}); attach stdin and write the control secret there`));
    const timer = patientTimer(waitMs, (hit) =>
      finish(new EgressArgumentError(`${variable} is set, and no control secret came on stdin within ${describeBound(hit)}; write it there, then a newline`)),
    );
    input.on("data", onData);
    input.once("end", onEnd);
    input.once("error", onError);
  });
}
