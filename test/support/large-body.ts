// Sends a large request body the way a client under back-pressure does: a mebibyte of spaces at a
// time, waiting for "drain", so a test can push tens of MiB at a server without holding them.

import type { ClientRequest } from "node:http";

const CHUNK = Buffer.alloc(1024 * 1024, 0x20);

/** Writes at least `bytes` to `req` in 1 MiB chunks, then ends it. */
export function sendLargeBody(req: ClientRequest, bytes: number): void {
  let sent = 0;
  const more = (): void => {
    while (sent < bytes) {
      sent += CHUNK.length;
      if (!req.write(CHUNK)) {
        req.once("drain", more);
        return;
      }
    }
    req.end();
  };
  more();
}
