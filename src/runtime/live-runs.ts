// The Runs of this process that are under way, across every runtime in it. A sweep never
// removes a container or Run directory listed here; two processes must not share an owner.

const live = new Set<string>();

export const liveRuns = {
  add: (runId: string): void => void live.add(runId),
  delete: (runId: string): void => void live.delete(runId),
  has: (runId: string): boolean => live.has(runId),
};
