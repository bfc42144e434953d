/**
 * `agentcage/egress`: the egress proxy beyond one started beside the Runs (`startEgressGateway`,
 * in the root): one per engine of a set, a running one connected to, its control (each Run's
 * registration, token and budget) and its meter (what each Run's calls used).
 *
 * ```ts
 * import { createAgentRunner } from "agentcage";
 * import { startEgressGateways } from "agentcage/egress";
 * import { createEngineSet, engineAt, parseEngineAddress } from "agentcage/runtime";
 *
 * const engines = createEngineSet(
 *   ["unix:///var/run/docker.sock", "tcp://10.0.0.2:2376"].map((address, index) => ({ name: `e${index}`, engine: engineAt(parseEngineAddress(address, "engines")) })),
 * );
 * const egress = await startEgressGateways({ runtimeDir: "/srv/agentcage", engines });
 * const agents = createAgentRunner({ image: "agentcage-agent:latest", engines, networkPolicy: "model", egress });
 * ```
 */
export type {
  EgressControlPath,
  EgressGatewayConnection,
  EgressGatewaySet,
  EgressGatewaySetOptions,
} from "../gateway/index.js";
export { DEFAULT_EGRESS_IMAGE, connectEgressGateway, startEgressGateways } from "../gateway/index.js";
export type {
  EgressBreach,
  EgressBudget,
  EgressCap,
  EgressControl,
  EgressControlClient,
  EgressCredential,
  EgressUsage,
  MeteredCall,
  RunMeter,
  RunRegistration,
} from "../egress/index.js";
