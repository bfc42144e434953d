// The Docker connection a caller gets when it gives none: DOCKER_HOST, else the local socket, as
// dockerode reads them when the connection is made. Made here because only the engine seam creates
// dockerode values. dockerode (and the gRPC and SSH stacks it loads) is required here, when a
// connection is made, not at import: a command that refuses its arguments never loads it.

import { createRequire } from "node:module";
import type Docker from "dockerode";

const require = createRequire(import.meta.url);

export function connectDocker(): Docker {
  const Dockerode = require("dockerode") as typeof Docker;
  return new Dockerode();
}
