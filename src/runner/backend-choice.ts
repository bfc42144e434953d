// The runner's one choice of Run Backend, made from its options where its settings are resolved (and
// where an assembly starts the proxy its Runs need): the runtime's backend, and what the runner keeps
// of its own for it, the egress proxy's placement. Callers ask the choice; none asks which it is.
// Invariant: the same options always choose the same kind; a choice that cannot mean anything is refused in the runner's words.

import { AgentContainerError } from "../container/index.js";
import { chooseRunBackendWith, perBackend, type BackendOptions, type PerBackend, type RunBackend } from "../runtime/index.js";
import { EGRESS_PLACEMENTS, type EgressPlacement } from "./egress-placement.js";
import { inRunnerWords, type AgentRunnerOptions } from "./runner-options.js";

export type BackendChoice = {
  /** Where the Runs' containers live; the runner's runtime takes this one. */
  readonly backend: RunBackend;
  /** Where the egress proxy of its Runs goes, and which proxy given by hand they can reach. */
  readonly egress: EgressPlacement;
};

/** The backend the options name, chosen once; throws AgentRunnerError for a choice that cannot mean anything. */
export function chooseBackend(options: Pick<AgentRunnerOptions, "docker" | "engine" | "engines" | "kubernetes">): BackendChoice {
  return inTheRunnersWords(() => {
    const { backend, own } = chooseRunBackendWith(options, EGRESS_PLACEMENTS);
    return { backend, egress: own };
  });
}

/**
 * What a caller above the runner keeps of its own for the backend these runner options name (the
 * service's: what a start checks, its series, what it lets go of): `each`'s answer for it, refused as chooseBackend refuses.
 */
export function ownForBackend<T>(options: BackendOptions, each: PerBackend<T>): T {
  return inTheRunnersWords(() => perBackend(options, each));
}

function inTheRunnersWords<T>(choose: () => T): T {
  try {
    return choose();
  } catch (error) {
    throw error instanceof AgentContainerError ? inRunnerWords(error) : error;
  }
}
