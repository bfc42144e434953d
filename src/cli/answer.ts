// The agent's answer on stdout: as it is when piped (it is the program's output), and with every
// terminal control written out when stdout is a terminal, where an agent that read untrusted input
// could otherwise drive the screen of the person running it.

import { printable } from "./progress.js";
import type { ViewStream } from "./view.js";

export function forStdout(text: string, stdout: ViewStream): string {
  return stdout.isTTY === true ? printable(text) : text;
}
