// The command's exit codes, one per thing a script would act on differently, decided from the
// Outcome alone. docs/command.md's exit statuses are written from this file.

export const EXIT = {
  /** The agent answered. */
  completed: 0,
  /** The Run ended without an answer: the agent, its API or its output failed. */
  failed: 1,
  /** The command line was wrong, or the request was refused before a Run began. */
  usage: 2,
  /** Nothing could run: no engine, no image, no credential, or the service cannot be reached. */
  unavailable: 3,
  /** The Run passed its timeout. */
  timeout: 4,
  /** The service went silent past --idle-timeout; the Run may still be going on there. */
  lost: 5,
  /** A budget cap was passed (--max-tokens, --max-cost, --max-wall); the agent was stopped. */
  budget: 6,
  /** The agent printed nothing and used no CPU for --stall seconds; it was stopped. */
  stalled: 7,
  /** Cancelled: Ctrl-C (128 + SIGINT), or a cancel from elsewhere. */
  cancelled: 130,
} as const;

/** The exit code for a Run's Outcome. */
export function exitCodeOf(outcome: { readonly ok: boolean; readonly reason: string }): number {
  if (outcome.ok) return EXIT.completed;
  switch (outcome.reason) {
    case "cancelled":
      return EXIT.cancelled;
    case "timeout":
      return EXIT.timeout;
    case "unavailable":
      return EXIT.unavailable;
    case "budget_exceeded":
      return EXIT.budget;
    case "stalled":
      return EXIT.stalled;
    case "invalid_request":
    case "input_limit":
      return EXIT.usage;
    default:
      return EXIT.failed;
  }
}
