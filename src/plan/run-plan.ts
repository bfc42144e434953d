// What one agent adapter answers for one Run: argv after the image, bytes for stdin, and the
// reader that turns stdout into a verdict. The reader decides ok; the runtime only adds facts.

/** What the caller asks of one Run. */
export type RunPrompt = {
  readonly text: string;
  /** A session id to resume, when the agent supports it; default: a new session. */
  readonly session?: string;
  /** The typed request this prompt is asked with, for the agent adapter (see src/agents); default: none. */
  readonly request?: unknown;
};

/** The least a reader must answer: whether the Run did what was asked, and why not. */
export type ReaderVerdict = {
  readonly ok: boolean;
  /** One sentence for a person when `ok` is false; default: none. */
  readonly error?: string;
};

export type RunPlan<R extends ReaderVerdict = ReaderVerdict> = {
  /** Words after the image (and after the rest of a declared entrypoint). */
  readonly args: readonly string[];
  /** Written to the agent's stdin, which is then closed. The prompt belongs here, never in args. */
  readonly stdin: string | Uint8Array;
  /**
   * Reads the agent's stdout to a verdict. The runtime drains stdout to its end even when this
   * returns early, and a throw ends the Run as `reader_error`.
   */
  readonly outcome: (stdout: AsyncIterable<Uint8Array>) => Promise<R>;
  /** The typed request behind this plan, kept as request.json in the Run record (secrets masked); default: none. */
  readonly request?: unknown;
};

/** One function per agent: called once per Run and once per `commandFor`, never at construction. */
export type RunPlanFunction<R extends ReaderVerdict = ReaderVerdict> = (prompt: RunPrompt) => RunPlan<R>;
