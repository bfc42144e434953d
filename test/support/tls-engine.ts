// A Docker engine of a test's own reached as a remote one is: over TCP with TLS client certificates
// (dockerd --tlsverify), on an address of a veth link into its network namespace. The certificates
// are made here by openssl: a CA, the daemon's (its IP in the SAN), a client's, and one from another
// CA that the daemon must refuse. Invariant: every key stays under the test's directory.

import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extraEngine, type ExtraEngine } from "./extra-engine.js";

export type TlsEngine = ExtraEngine & {
  /** `tcp://IP:2376`, as --engine takes it with `,certs=DIR`. */
  readonly tcpAddress: string;
  /** The client's certificates in DOCKER_CERT_PATH's layout (ca.pem, cert.pem, key.pem). */
  readonly certs: string;
  /** A client's certificate signed by a CA the daemon does not trust (its ca.pem the daemon's own), in the same layout. */
  readonly strangerCerts: string;
};

const PORT = 2376;

function openssl(cwd: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
}

/** A CA (ca.pem, ca-key.pem) in `dir`. */
function makeCa(dir: string, subject: string): void {
  mkdirSync(dir, { recursive: true });
  openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", `/CN=${subject}`);
}

/** A certificate `name`-cert.pem and key signed by the CA in `caDir`, for a server (with its IP) or a client. */
function signed(caDir: string, out: string, name: string, usage: { server: string } | "client"): void {
  const extensions = join(out, `${name}.ext`);
  writeFileSync(extensions, usage === "client" ? "extendedKeyUsage = clientAuth\n" : `extendedKeyUsage = serverAuth\nsubjectAltName = IP:${usage.server}\n`);
  openssl(out, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}-key.pem`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
  openssl(
    out,
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    join(caDir, "ca.pem"),
    "-CAkey",
    join(caDir, "ca-key.pem"),
    "-CAcreateserial",
    "-out",
    `${name}-cert.pem`,
    "-days",
    "2",
    "-extfile",
    extensions,
  );
}

/** The client's files under DOCKER_CERT_PATH's names: its certificate signed by `caDir`'s CA, trusting `trusted`'s. */
function clientDir(caDir: string, dir: string, trusted: string = caDir): string {
  mkdirSync(dir, { recursive: true });
  signed(caDir, dir, "client", "client");
  execFileSync("cp", [join(trusted, "ca.pem"), join(dir, "ca.pem")]);
  execFileSync("mv", [join(dir, "client-cert.pem"), join(dir, "cert.pem")]);
  execFileSync("mv", [join(dir, "client-key.pem"), join(dir, "key.pem")]);
  return dir;
}

/**
 * `link`: the /30's third octet (10.254.N.0), one per engine a test makes, so two do not collide.
 * The daemon also keeps its unix socket (`address`), which the test's own `docker` uses. `storage`
 * as extraEngine takes it: overlay2 for the agent's and the proxy's images.
 */
export function tlsEngine(root: string, name: string, link: number, storage: "vfs" | "overlay2" = "vfs"): TlsEngine {
  const dir = join(root, `${name}-tls`);
  const ca = join(dir, "ca");
  makeCa(ca, `${name} test CA`);
  const hostIp = `10.254.${link}.1`;
  const engineIp = `10.254.${link}.2`;
  signed(ca, ca, "server", { server: engineIp });
  const certs = clientDir(ca, join(dir, "client"));
  const stranger = join(dir, "stranger-ca");
  makeCa(stranger, "a CA the daemon does not know");
  // It trusts the daemon (the real CA); the daemon does not trust it.
  const strangerCerts = clientDir(stranger, join(dir, "stranger"), ca);
  const engine = extraEngine(root, name, storage, [
    "-H",
    `tcp://${engineIp}:${PORT}`,
    "--tlsverify",
    "--tlscacert",
    join(ca, "ca.pem"),
    "--tlscert",
    join(ca, "server-cert.pem"),
    "--tlskey",
    join(ca, "server-key.pem"),
  ]);
  // A veth pair: one end here, the other in the engine's namespace, a /30 between them.
  const hostEnd = `vh${link}-${process.pid % 10_000}`;
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "ignore" });
  ip("link", "add", hostEnd, "type", "veth", "peer", "name", "eth-test", "netns", engine.namespace);
  ip("addr", "add", `${hostIp}/30`, "dev", hostEnd);
  ip("link", "set", hostEnd, "up");
  ip("netns", "exec", engine.namespace, "ip", "addr", "add", `${engineIp}/30`, "dev", "eth-test");
  ip("netns", "exec", engine.namespace, "ip", "link", "set", "eth-test", "up");
  // Removing the namespace removes its end of the pair, and with it this one.
  return { ...engine, tcpAddress: `tcp://${engineIp}:${PORT}`, certs, strangerCerts };
}
