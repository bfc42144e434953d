/**
 * For testing an agent integration offline: the stand-in model server (images/stand-in), started
 * in a container with no network through the library itself, which an agent container joins.
 *
 * ```ts
 * const standIn = await startStandInModel("plain");
 * const agents = createAgentRunner({ image: AGENT_IMAGE, networks: [standIn.network], anthropicBaseUrl: standIn.baseUrl });
 * // ... run, then:
 * await standIn.stop();
 * ```
 */
export type { RunningStandIn, StandInOptions, StandInRequest } from "./stand-in-model.js";
export { AGENT_IMAGE, STAND_IN_IMAGE, STAND_IN_PORT, startStandInModel } from "./stand-in-model.js";
