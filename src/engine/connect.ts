// The Docker connection a caller gets when it gives none: DOCKER_HOST, else the local socket, as
// dockerode reads them. Made here because only the engine seam creates dockerode values.

import type Docker from "dockerode";

/** Loads dockerode only when called: importing the engine seam costs nothing until it is used. */
export async function connectDocker(): Promise<Docker> {
  const { default: Dockerode } = await import("dockerode");
  return new Dockerode();
}
