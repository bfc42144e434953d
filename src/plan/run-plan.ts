// What one agent adapter answers for one Run: argv after the image, bytes for stdin, and the
// reader that turns stdout into a verdict. The reader decides ok; the runtime only adds facts.
// Generic over the adapter's own request (Q), so what an adapter asks with reaches its plan typed.

/**
 * What the caller asks of one Run. With a request type Q, `request` is required and typed;
 * without one (the default), there is none.
 */
export type RunPrompt<Q = undefined> = {
  readonly text: string;
  /** A session id to resume, when the agent supports it; default: a new session. */
  readonly session?: string;
} & ([Q] extends [undefined] ? { readonly request?: undefined } : { readonly request: Q });

/** The least a reader must answer: whether the Run did what was asked, and why not. */
export type ReaderVerdict = {
  readonly ok: boolean;
  /** One sentence for a person when `ok` is false; default: none. */
  readonly error?: string;
  /** The agent's own session id, when it has one: a Run with a session store keeps it under this id. */
  readonly sessionId?: string;
};

/**
 * What a Run Plan function answers for one Run: the words after the image, the stdin (where the
 * prompt belongs, never in args), and the reader that turns stdout into a verdict.
 */
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
  /** What this plan was asked, kept as request.json in the Run record (secrets masked); default: none. */
  readonly request?: unknown;
  /**
   * Once the reader has returned its verdict, the agent has this long (ms; on a busy machine
   * stretched by its load, as a busy engine tells of an exit late) to exit before its container is
   * stopped, and the verdict stands. For agents whose reader returns at a terminal
   * record (a CLI's `result`), so a hang on the way out (a telemetry upload) cannot cost the Run's
   * timeout. Default: none; the agent may run on until it exits or the timeout ends it.
   */
  readonly exitGraceMs?: number;
};

/** What the runtime tells a plan function about the Run it plans. */
export type PlanContext = {
  readonly runId: string;
  /** Masks this Run's secrets (the declaration's and the Run's own) in a JSON-like value: for what a plan hands its caller live. */
  readonly mask: <T>(value: T) => T;
};

/** One function per agent: called once per Run and once per `commandFor`, never at construction. */
export type RunPlanFunction<R extends ReaderVerdict = ReaderVerdict, Q = undefined> = (prompt: RunPrompt<Q>, run: PlanContext) => RunPlan<R>;
