// Where a Docker engine is reached, written as an Operator writes it (`--engine`): a local socket
// path or `unix://`, `tcp://host:port` (with TLS client certificates from a directory in
// DOCKER_CERT_PATH's layout: ca.pem, cert.pem, key.pem), `ssh://user@host[:port]`, or `local` for
// dockerode's own default. The one place such a text is read and turned into a connection.

import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { createRequire } from "node:module";
import type Docker from "dockerode";
import { createDockerEngine } from "./docker.js";
import { connectDocker } from "./connect.js";
import { sshDocker } from "./ssh-docker.js";
import type { Engine } from "./engine.js";

const require = createRequire(import.meta.url);

/** An engine's address, read: which transport, and what it needs. */
export type EngineAddress =
  | { readonly kind: "local" }
  | { readonly kind: "socket"; readonly path: string }
  | { readonly kind: "tcp"; readonly host: string; readonly port: number; readonly certs?: string }
  | { readonly kind: "ssh"; readonly user: string; readonly host: string; readonly port: number };

const FORMS = "write a socket path (/var/run/docker.sock or unix:///var/run/docker.sock), tcp://host:2376, ssh://user@host, or local";

/**
 * Reads one address; `certs` is the directory of a tcp:// engine's TLS client certificates. Throws
 * an Error naming `parameter`, quoting the value and saying what to write, when it cannot mean anything.
 */
export function parseEngineAddress(value: string, parameter: string, certs?: string): EngineAddress {
  const refuse = (why: string): never => {
    throw new Error(`${parameter} ${JSON.stringify(value)} ${why}; ${FORMS}`);
  };
  if (certs !== undefined && !value.startsWith("tcp://")) refuse("is not a tcp:// address, so it takes no certs directory");
  if (value === "local") return { kind: "local" };
  if (value.startsWith("/")) return { kind: "socket", path: value };
  if (value.startsWith("unix://")) {
    const path = value.slice("unix://".length);
    if (!isAbsolute(path)) refuse("does not name an absolute socket path after unix://");
    return { kind: "socket", path };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse("is not an engine address");
  }
  const port = url.port === "" ? undefined : Number(url.port);
  if (url.pathname !== "" && url.pathname !== "/") refuse("has a path after its host");
  if (url.protocol === "tcp:") {
    if (url.hostname === "" || port === undefined) refuse("needs a host and a port, as in tcp://10.0.0.5:2376");
    if (certs !== undefined && !isAbsolute(certs)) refuse(`has certs ${JSON.stringify(certs)}, which is not an absolute directory`);
    return { kind: "tcp", host: url.hostname, port: port as number, ...(certs === undefined ? {} : { certs }) };
  }
  if (url.protocol === "ssh:") {
    if (url.hostname === "" || url.username === "") refuse("needs a user and a host, as in ssh://agentcage@10.0.0.5");
    return { kind: "ssh", user: decodeURIComponent(url.username), host: url.hostname, port: port ?? 22 };
  }
  return refuse(`has the scheme ${JSON.stringify(url.protocol)}, which is not one of unix, tcp, ssh`);
}

/** The engine at an address. Nothing is asked of it yet; a tcp:// engine's certificates are read now (a missing one throws, naming it). */
export function engineAt(address: EngineAddress): Engine {
  return createDockerEngine(dockerAt(address));
}

function dockerAt(address: EngineAddress): Docker {
  const Dockerode = require("dockerode") as typeof Docker;
  switch (address.kind) {
    case "local":
      return connectDocker();
    // `host: undefined` over what DOCKER_HOST would give dockerode's defaults.
    case "socket":
      return new Dockerode({ socketPath: address.path, host: undefined } as Docker.DockerOptions);
    case "tcp":
      return new Dockerode({
        host: address.host,
        port: address.port,
        protocol: address.certs === undefined ? "http" : "https",
        ...(address.certs === undefined ? {} : certificatesIn(address.certs)),
      });
    case "ssh":
      return sshDocker(address);
  }
}

function certificatesIn(directory: string): { ca: string; cert: string; key: string } {
  const read = (name: string): string => {
    try {
      return readFileSync(join(directory, name), "utf8");
    } catch (error) {
      throw new Error(
        `the engine's TLS client certificates directory ${JSON.stringify(directory)} has no readable ${name} (${(error as NodeJS.ErrnoException).code ?? "unreadable"}); put ca.pem, cert.pem and key.pem there, as DOCKER_CERT_PATH holds them`,
      );
    }
  };
  return { ca: read("ca.pem"), cert: read("cert.pem"), key: read("key.pem") };
}

/** How an address reads in a log line, a metric label or a refusal: never a certificate, only where. */
export function describeEngineAddress(address: EngineAddress): string {
  switch (address.kind) {
    case "local":
      return "local";
    case "socket":
      return `unix://${address.path}`;
    case "tcp":
      return `tcp://${address.host}:${address.port}`;
    case "ssh":
      return `ssh://${address.user}@${address.host}:${address.port}`;
  }
}
