// Which egress proxy is this deployment's: the one place that decides it when the Operator names
// none. Compose (v1 and v2) labels every container with its project and service; this process's own
// container (its host name is its short id) names the project, and the proxy is that project's one
// running `egress` service container. Another project's proxy on the same engine is never chosen.

import { hostname } from "node:os";
import type { Engine } from "../engine/index.js";
import { RunRequestError } from "../runtime/index.js";

export const COMPOSE_PROJECT_LABEL = "com.docker.compose.project";
export const COMPOSE_SERVICE_LABEL = "com.docker.compose.service";
/** `docker compose run` containers: never a deployment's long-lived proxy. */
const COMPOSE_ONEOFF_LABEL = "com.docker.compose.oneoff";
/** The service name compose.yaml gives the proxy. */
export const EGRESS_SERVICE = "egress";

export type DeploymentEgressOptions = {
  /** This process's container, by id or name; default its host name, which the engine sets to the container's short id. */
  readonly self?: string;
  /** The proxy's service name in the compose file; default EGRESS_SERVICE. */
  readonly service?: string;
};

/**
 * The id of the egress proxy of the compose project this process's container belongs to. Throws
 * (RunRequestError) saying what to pass when this process is not in a compose container, or the
 * project has no running proxy, or more than one.
 */
export async function findDeploymentEgress(engine: Engine, options: DeploymentEgressOptions = {}): Promise<string> {
  const self = options.self ?? hostname();
  const service = options.service ?? EGRESS_SERVICE;
  const override = "pass --egress-container (AGENTCAGE_EGRESS_CONTAINER) to name the proxy";
  const labels = await engine.labelsOf(self);
  if (labels === undefined) {
    throw new RunRequestError(
      `this process's container ${JSON.stringify(self)} (its host name) is not one the engine knows, so its deployment's egress proxy cannot be found; run it as a compose service with its default host name, or ${override}`,
    );
  }
  const project = labels[COMPOSE_PROJECT_LABEL];
  if (project === undefined || project === "") {
    throw new RunRequestError(
      `this process's container ${JSON.stringify(self)} has no ${COMPOSE_PROJECT_LABEL} label, so it is not part of a compose deployment; ${override}`,
    );
  }
  const candidates = (await engine.listByLabel(`${COMPOSE_PROJECT_LABEL}=${project}`)).filter(
    (c) => c.labels[COMPOSE_SERVICE_LABEL] === service && c.labels[COMPOSE_ONEOFF_LABEL] !== "True" && c.running,
  );
  const [only, ...more] = candidates;
  if (only === undefined) {
    throw new RunRequestError(
      `compose project ${JSON.stringify(project)} has no running ${JSON.stringify(service)} service container; start it (docker compose up -d ${service}), or ${override}`,
    );
  }
  if (more.length > 0) {
    throw new RunRequestError(
      `compose project ${JSON.stringify(project)} runs ${candidates.length} ${JSON.stringify(service)} containers; scale it to one, or ${override}`,
    );
  }
  return only.id;
}
