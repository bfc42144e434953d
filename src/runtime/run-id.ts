// A Run's identity: 16 hex digits, random, the name of its container and of its Run directory.
// The staging layout's RUN_ID_PATTERN must keep matching what this makes.

import { randomBytes } from "node:crypto";

export function newRunId(): string {
  return randomBytes(8).toString("hex");
}
