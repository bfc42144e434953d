// A Docker connection over ssh, made one way wherever it is asked for (an `ssh://` engine address,
// or DOCKER_HOST=ssh://...): the keys of the user's ssh-agent, and the host's key held to
// ~/.ssh/known_hosts (known-hosts.ts), never whatever answers.

import { createRequire } from "node:module";
import type Docker from "dockerode";
import { hostVerifierFor } from "./known-hosts.js";

const require = createRequire(import.meta.url);

export function sshDocker(address: { readonly user: string; readonly host: string; readonly port: number }): Docker {
  const Dockerode = require("dockerode") as typeof Docker;
  return new Dockerode({
    host: address.host,
    port: address.port,
    protocol: "ssh",
    username: address.user,
    sshOptions: {
      // The keys of the user's own ssh-agent, as the docker CLI uses them.
      ...(process.env["SSH_AUTH_SOCK"] === undefined ? {} : { agent: process.env["SSH_AUTH_SOCK"] }),
      hostVerifier: hostVerifierFor(address.host, address.port),
    },
  });
}
