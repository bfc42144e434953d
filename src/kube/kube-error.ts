// The one refusal of the Kubernetes backend: a Run it cannot honour as a Pod. Thrown where it is
// decided, from the value alone; the message names the parameter, quotes its value, says what to do.
import { AgentcageError } from "../errors/index.js";

export class KubernetesError extends AgentcageError {
  override readonly name = "KubernetesError";
  readonly code = "kubernetes_refused";
}
