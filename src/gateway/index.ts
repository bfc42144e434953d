/**
 * The egress proxy's container: started (or found, in a compose deployment) beside the Runs, on
 * its own network to the model and joined to each Run's network, holding the real credential so
 * an agent never does. The proxy itself (what it forwards, meters and refuses) is src/egress/.
 *
 * ```ts
 * const egress = await startEgressGateway({ runtimeDir: "/srv/agentcage" });
 * const agents = createAgentRunner({ image: AGENT_IMAGE, staging: { runtimeDir: "/srv/agentcage" }, networkPolicy: "model", egress });
 * // ... Runs ...
 * await egress.close();
 * // On an engine that does not see this disk: no mount, the control channel goes through the engine.
 * const remote = await startEgressGateway({ control: "engine", engine });
 * // Over several engines, one proxy per engine: a Run joins the proxy of the engine it is placed on.
 * const proxies = await startEgressGateways({ runtimeDir: "/srv/agentcage", engines });
 * ```
 */
export type { EgressControlPath, EgressGateway, EgressGatewayOptions } from "./egress-gateway.js";
export type { EgressGatewayConnection } from "./connect-gateway.js";
export type { EgressGatewaySet, EgressGatewaySetOptions } from "./egress-gateways.js";
export { DEFAULT_EGRESS_IMAGE, startEgressGateway } from "./egress-gateway.js";
export { connectEgressGateway } from "./connect-gateway.js";
export { startEgressGateways } from "./egress-gateways.js";
export type { KubeEgressGateway, KubeEgressGatewayOptions } from "./kube-egress-gateway.js";
export { isKubeEgressGateway, startKubeEgressGateway } from "./kube-egress-gateway.js";
export { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, findDeploymentEgress } from "./deployment-egress.js";
