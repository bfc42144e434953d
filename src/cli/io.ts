// What a subcommand speaks through: its two streams, whether stderr takes the live view, Ctrl-C,
// leaving at once, and (for the program) the environment and stdin. Tests hand in their own.

import type { ViewStream } from "./view.js";

export type CommandIo = {
  readonly stdout: ViewStream;
  readonly stderr: ViewStream;
  /** Whether stderr gets the live view (a terminal, no NO_COLOR, no CI). */
  readonly live: boolean;
  /** Calls `handler` on each Ctrl-C until the returned function is called. */
  readonly onInterrupt: (handler: () => void) => () => void;
  /** Leaves at once with `code` (a second Ctrl-C). */
  readonly exit: (code: number) => never;
};

export type ProgramIo = CommandIo & {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads all of stdin (for a prompt given as "-"). */
  readonly readStdin: () => Promise<string>;
};
