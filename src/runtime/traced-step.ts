// Decides how a Run's step becomes a span: as a child of the Run's span when the Run has one, and
// as the bare step when it has none. Invariant: the step's result, and what it throws, are the same either way.

import type { RunStep, RunTrace } from "../trace/index.js";

export function tracedStep<T>(trace: RunTrace | undefined, name: RunStep, work: () => Promise<T>): Promise<T> {
  return trace === undefined ? work() : trace.step(name, work);
}
