// An ssh engine's host key held to known_hosts as ssh holds it: plain, `[host]:port`, hashed and
// pattern names, a changed key and an unknown host refused with what to do, @revoked refused.
import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyHostKey } from "./known-hosts.js";

const KEY = randomBytes(51);
const OTHER = randomBytes(51);
const line = (names: string, key: Buffer = KEY) => `${names} ssh-ed25519 ${key.toString("base64")}`;
const hashed = (name: string) => {
  const salt = randomBytes(20);
  return `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update(name).digest("base64")}`;
};

describe("an ssh engine's host key against known_hosts", () => {
  it("is trusted under its plain name on port 22, and as [host]:port on another", () => {
    expect(verifyHostKey(line("build-3,10.0.0.5"), "10.0.0.5", 22, KEY)).toEqual({ ok: true });
    expect(verifyHostKey(line("[10.0.0.5]:2222"), "10.0.0.5", 2222, KEY)).toEqual({ ok: true });
    // A port-22 entry does not vouch for another port.
    expect(verifyHostKey(line("10.0.0.5"), "10.0.0.5", 2222, KEY).ok).toBe(false);
  });

  it("reads hashed names and patterns, and skips comments, markers it does not trust and negated names", () => {
    const text = ["# a comment", "", line(hashed("[127.0.0.1]:40022"))].join("\n");
    expect(verifyHostKey(text, "127.0.0.1", 40022, KEY)).toEqual({ ok: true });
    expect(verifyHostKey(line("*.example.org"), "build.example.org", 22, KEY)).toEqual({ ok: true });
    expect(verifyHostKey(line("*.example.org,!evil.example.org"), "evil.example.org", 22, KEY).ok).toBe(false);
    expect(verifyHostKey(`@cert-authority ${line("*")}`, "build-3", 22, KEY).ok).toBe(false);
  });

  it("refuses a changed key and an unknown host, each saying what to do, and a revoked key whatever else says", () => {
    expect(verifyHostKey(line("build-3", OTHER), "build-3", 22, KEY)).toEqual({
      ok: false,
      why: `the host key build-3 showed is not the one known_hosts holds for it (it changed, or another machine answers); check the engine's key, then mend known_hosts (ssh-keygen -R "build-3")`,
    });
    expect(verifyHostKey(line("build-4"), "build-3", 2222, KEY)).toEqual({
      ok: false,
      why: "[build-3]:2222 is not in known_hosts; check its key's fingerprint with its operator, then add it (ssh-keyscan -p 2222 build-3 >> ~/.ssh/known_hosts)",
    });
    expect(verifyHostKey([`@revoked ${line("build-3")}`, line("build-3")].join("\n"), "build-3", 22, KEY).ok).toBe(false);
    expect(verifyHostKey([line("build-3"), `@revoked ${line("build-3")}`].join("\n"), "build-3", 22, KEY)).toMatchObject({
      ok: false,
      why: expect.stringMatching(/@revoked/),
    });
  });
});
