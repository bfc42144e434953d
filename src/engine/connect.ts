// The Docker connection a caller gets when it gives none: DOCKER_HOST, else the local socket, as
// dockerode reads them. Made here because only the engine seam creates dockerode values.

import Docker from "dockerode";

export function connectDocker(): Docker {
  return new Docker();
}
