// What an engine's connection failure means when it is TLS's (a tcp:// engine with certs=, or one
// without) or ssh's (an unknown host key, a key not taken): which side refused what and what to
// change, instead of OpenSSL's or ssh2's own line. Invariant: no certificate's or key's content is quoted.

/** Node's verification codes for a server certificate this client's ca.pem does not vouch for. */
const UNTRUSTED_SERVER = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_SIGNATURE_FAILURE",
]);

/** TLS's or ssh's trouble with an engine, said plainly, and whose it is (what a fix must mend). */
export type ConnectionTrouble = { readonly kind: "tls" | "ssh"; readonly words: string };

/** TLS's or ssh's trouble in `error` (whose own words are `said`); undefined when it is neither's. */
export function connectionTrouble(error: unknown, said: string): ConnectionTrouble | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNTRUSTED_SERVER.has(code)) {
    return {
      kind: "tls",
      words: `TLS: the engine's certificate is not signed by the CA in ca.pem of its certs= directory (${code}); put there the CA that signed dockerd's --tlscert`,
    };
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return { kind: "tls", words: `TLS: the engine's certificate does not name the address dialled (${code}); dial a name or IP its certificate holds` };
  }
  if (code === "CERT_HAS_EXPIRED" || code === "CERT_NOT_YET_VALID") {
    return { kind: "tls", words: `TLS: the engine's certificate is out of its validity period (${code}); renew dockerd's --tlscert` };
  }
  if (/alert (bad certificate|unknown ca|certificate unknown|certificate required|handshake failure)/i.test(said)) {
    const alert = /alert ([a-z ]+?):/i.exec(said)?.[1] ?? "bad certificate";
    return {
      kind: "tls",
      words: `TLS: the engine refused this client's certificate (${alert}); cert.pem of its certs= directory must be signed by a CA dockerd trusts (its --tlscacert)`,
    };
  }
  if (/client sent an HTTP request to an HTTPS server/i.test(said)) {
    return {
      kind: "tls",
      words: "the engine speaks TLS and was sent plain HTTP; add certs=DIR to its address, DIR holding ca.pem, cert.pem and key.pem as DOCKER_CERT_PATH does",
    };
  }
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || /wrong version number/i.test(said)) {
    return { kind: "tls", words: "the engine speaks plain HTTP and certs= asked for TLS; leave certs= out, or start dockerd with --tlsverify" };
  }
  if (/host denied \(verification failed\)/i.test(said)) {
    return {
      kind: "ssh",
      words:
        "ssh: the engine's host key is not one ~/.ssh/known_hosts holds for its host and port (it is not there, or it changed); check its fingerprint with the engine's operator, then add it (ssh-keyscan -p PORT HOST >> ~/.ssh/known_hosts)",
    };
  }
  if (/all configured authentication methods failed/i.test(said)) {
    return {
      kind: "ssh",
      words:
        "ssh: the engine's host took none of this process's keys; load the key its authorized_keys holds into the ssh-agent SSH_AUTH_SOCK names (ssh-add KEY)",
    };
  }
  return undefined;
}
