// TLS's failures said as which side refused which certificate, from the errors Node and dockerd give
// (their codes and messages as seen against a dockerd with --tlsverify in engine-tls.docker.test.ts).
import { describe, expect, it } from "vitest";
import { connectionMessage, connectionTroubleKind, describeEngineError, engineShownGone } from "./errors.js";

const failure = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe("an engine's connection failure in words", () => {
  it("says the engine refused this client's certificate on OpenSSL's alert, without OpenSSL's line", () => {
    const said = connectionMessage(
      failure(
        "80EC4CC63F7F0000:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 42",
        "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE",
      ),
    );
    expect(said).toBe(
      "TLS: the engine refused this client's certificate (bad certificate); cert.pem of its certs= directory must be signed by a CA dockerd trusts (its --tlscacert)",
    );
  });

  it("says the engine's certificate is not vouched for by ca.pem, and names a certificate for another address", () => {
    expect(connectionMessage(failure("unable to verify the first certificate", "UNABLE_TO_VERIFY_LEAF_SIGNATURE"))).toMatch(
      /^TLS: the engine's certificate is not signed by the CA in ca\.pem .*\(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    );
    expect(connectionMessage(failure("Hostname/IP does not match certificate's altnames", "ERR_TLS_CERT_ALTNAME_INVALID"))).toMatch(
      /does not name the address dialled/,
    );
  });

  it("says which side speaks TLS when one does and the other does not", () => {
    const plainToTls = Object.assign(failure("(HTTP code 400) unexpected - Client sent an HTTP request to an HTTPS server."), { statusCode: 400 });
    expect(connectionMessage(plainToTls)).toMatch(/^the engine speaks TLS and was sent plain HTTP; add certs=DIR/);
    expect(connectionMessage(failure("ssl3_get_record:wrong version number", "ERR_SSL_WRONG_VERSION_NUMBER"))).toMatch(
      /^the engine speaks plain HTTP and certs= asked for TLS/,
    );
  });

  it("leaves every other failure in the engine's own words, and says TLS's in a failed call's too", () => {
    expect(connectionMessage(failure("connect ECONNREFUSED 10.0.0.5:2376", "ECONNREFUSED"))).toBe("connect ECONNREFUSED 10.0.0.5:2376");
    expect(describeEngineError("info", failure("unable to verify the first certificate", "UNABLE_TO_VERIFY_LEAF_SIGNATURE"), "")).toMatch(
      /^the engine could not be asked to info: TLS: the engine's certificate/,
    );
  });

  it("says whose trouble it was, so a fix can name what to mend", () => {
    expect(connectionTroubleKind(failure("sslv3 alert bad certificate:../deps", "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE"))).toBe("tls");
    expect(connectionTroubleKind(failure("Host denied (verification failed)"))).toBe("ssh");
    expect(connectionMessage(failure("All configured authentication methods failed"))).toMatch(/^ssh: the engine's host took none of this process's keys/);
    expect(connectionTroubleKind(failure("connect ECONNREFUSED 10.0.0.5:2376", "ECONNREFUSED"))).toBeUndefined();
  });
});

describe("an engine shown gone, told from one that is slow or refuses a call", () => {
  it("takes a refused connection, a missing socket, no route, or TLS's or ssh's refusal for an engine gone", () => {
    for (const code of ["ECONNREFUSED", "ENOENT", "EACCES", "EHOSTUNREACH", "ENETUNREACH"])
      expect(engineShownGone(failure(`connect ${code}`, code))).toBe("refused");
    expect(engineShownGone(Object.assign(failure("connect ETIMEDOUT 10.0.0.5:2376", "ETIMEDOUT"), { syscall: "connect" }))).toBe("refused");
    expect(engineShownGone(failure("certificate has expired", "CERT_HAS_EXPIRED"))).toBe("refused");
    expect(engineShownGone(failure("All configured authentication methods failed"))).toBe("refused");
  });

  it("takes a connection closed before any answer for a broken one", () => {
    expect(engineShownGone(failure("socket hang up", "ECONNRESET"))).toBe("broken");
    expect(engineShownGone(failure("write EPIPE", "EPIPE"))).toBe("broken");
  });

  it("does not take a late answer, nor the engine's own refusal of a call, for an engine gone", () => {
    expect(engineShownGone(failure("the engine did not answer its ping within 3000 ms"))).toBeUndefined();
    expect(engineShownGone(Object.assign(failure("(HTTP code 500) server error"), { statusCode: 500, json: { message: "no" } }))).toBeUndefined();
    expect(engineShownGone(failure("Timed out while waiting for handshake"))).toBeUndefined();
    expect(engineShownGone(Object.assign(failure("read ETIMEDOUT", "ETIMEDOUT"), { syscall: "read" }))).toBeUndefined();
  });
});
