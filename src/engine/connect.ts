// The Docker connection a caller gets when it gives none: DOCKER_HOST, else the local socket, as
// dockerode reads them when the connection is made. Made here because only the engine seam creates
// dockerode values. dockerode (and the gRPC and SSH stacks it loads) is required here, when a
// connection is made, not at import: a command that refuses its arguments never loads it.

import { createRequire } from "node:module";
import type Docker from "dockerode";
import { sshDocker } from "./ssh-docker.js";

const require = createRequire(import.meta.url);

export function connectDocker(): Docker {
  // Over ssh, the host's key is held to known_hosts, which dockerode's own ssh connection does not do.
  const host = process.env["DOCKER_HOST"];
  if (host?.startsWith("ssh://") === true) {
    const url = new URL(host);
    return sshDocker({ user: decodeURIComponent(url.username), host: url.hostname, port: url.port === "" ? 22 : Number(url.port) });
  }
  const Dockerode = require("dockerode") as typeof Docker;
  return new Dockerode();
}
