// `agentcage keys`, `tenants` and `audit` as a person or a script runs them: the built command
// against a real `agentcage serve --stand-in` on loopback, the token found where serve wrote it. A
// key made, listed by its prefix and never its secret, used, revoked and then refused at its very
// next request; a tenant's quota set and shown; the audit log naming the Operator's token as actor
// of each change, with no secret in it. Refusals of the service exit 2 with its own message.

import { afterAll, describe, expect, it } from "vitest";
import { commandEnv, runCommand } from "../../test/support/command.js";
import { useTestService } from "../../test/support/service.js";
import { EXIT } from "./exit-codes.js";

// Private callbacks allowed: a tenant's default receiver here is on this machine's loopback.
const service = useTestService("cli-admin", { slots: 1, allowPrivateCallbacks: true });
/** No token in the environment: the command reads the one serve wrote under --runtime-dir. */
const env = (extra: Record<string, string> = {}) =>
  commandEnv({ AGENTCAGE_TOKEN: undefined, AGENTCAGE_TOKEN_FILE: undefined, AGENTCAGE_URL: undefined, ...extra });
const admin = (words: readonly string[], extra?: Record<string, string>) =>
  runCommand([...words, "--remote", service.running().url, "--runtime-dir", service.runtimeDir], env(extra));
const runsWith = (key: string) => fetch(new URL("/v1/runs", service.running().url), { headers: { authorization: `Bearer ${key}` } });

const KEY = /^ac_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
let key = "";
let prefix = "";
let secret = "";
const printed: string[] = [];
afterAll(() => {
  // Nothing any command printed after create holds the key's secret, nor the Operator's token.
  for (const text of printed) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(service.token());
  }
});

describe("agentcage keys", () => {
  it("create prints the key alone on stdout when stdout is not a terminal, and its prefix on stderr", async () => {
    const made = await admin(["keys", "create", "--tenant", "a", "--expires", "30d"]);
    expect(made.code, made.stderr).toBe(EXIT.completed);
    expect(made.stdout).toMatch(/^ac_[0-9a-f]{12}_[A-Za-z0-9_-]{43}\n$/);
    key = made.stdout.trim();
    [, prefix = "", secret = ""] = KEY.exec(key) ?? [];
    expect(made.stderr).toContain(`key ${prefix}: tenant a, scope runs:write, expires `);
    expect(made.stderr).toContain("shown this once");
    expect(made.stderr).not.toContain(secret);
  });

  it("ls shows its prefix, tenant and scope, never its secret", async () => {
    const listed = await admin(["keys", "ls", "--tenant", "a"]);
    printed.push(listed.stdout, listed.stderr);
    expect(listed.code, listed.stderr).toBe(EXIT.completed);
    expect(listed.stdout).toMatch(/^PREFIX +TENANT +SCOPE +CREATED +EXPIRES +LAST USE +REVOKED\n/);
    expect(listed.stdout).toMatch(new RegExp(`^${prefix} +a +runs:write +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ +\\d{4}-`, "m"));
    const json = await admin(["keys", "ls", "--json"]);
    printed.push(json.stdout, json.stderr);
    expect((JSON.parse(json.stdout) as Array<{ prefix: string }>).map((k) => k.prefix)).toContain(prefix);
  });

  it("the key works until revoke, and is refused (401) at its very next request", async () => {
    expect((await runsWith(key)).status).toBe(200);
    // The whole key is taken: its prefix goes to the service, its secret nowhere.
    const revoked = await admin(["keys", "revoke", key]);
    printed.push(revoked.stdout, revoked.stderr);
    expect(revoked.code, revoked.stderr).toBe(EXIT.completed);
    expect(revoked.stdout).toContain(`key ${prefix} of tenant a is revoked`);
    const refused = await runsWith(key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("unauthorized");
  });

  it("says the service's refusal and exits 2: a revoked token (401), a scope too small (403), an unknown prefix (404)", async () => {
    const revokedToken = await admin(["keys", "ls"], { AGENTCAGE_TOKEN: key });
    printed.push(revokedToken.stdout);
    expect(revokedToken.code).toBe(EXIT.usage);
    expect(revokedToken.stderr).toContain("the service refused the token (HTTP 401 unauthorized: this key was revoked");

    const reader = (await admin(["keys", "create", "--tenant", "a", "--scope", "runs:read"])).stdout.trim();
    const small = await admin(["keys", "ls"], { AGENTCAGE_TOKEN: reader });
    expect(small.code).toBe(EXIT.usage);
    expect(small.stderr).toContain("the service refused GET /v1/keys to this key (HTTP 403 forbidden: this key's scope runs:read does not allow GET /v1/keys");
    expect(small.stderr).not.toContain(reader);

    const unknown = await admin(["keys", "revoke", "0123456789ab"]);
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('HTTP 404 not_found: no key has the prefix "0123456789ab"');
  });
});

describe("agentcage tenants", () => {
  it("set --max-queued 1 changes the tenant's own quota; show prints it with the others' defaults, its callback URL and webhook secret", async () => {
    // A receiver whose host does not resolve is refused, and nothing of the tenant changes.
    const unresolved = await admin(["tenants", "set", "a", "--max-queued", "1", "--callback-url", "https://ci.example.invalid/agentcage"]);
    expect(unresolved.code).toBe(EXIT.usage);
    expect(unresolved.stderr).toContain('callbackUrl "https://ci.example.invalid/agentcage" names a host that does not resolve');

    const set = await admin(["tenants", "set", "a", "--max-queued", "1", "--callback-url", "http://127.0.0.1:9/agentcage"]);
    printed.push(set.stdout, set.stderr);
    expect(set.code, set.stderr).toBe(EXIT.completed);
    expect(set.stdout).toMatch(/^max queued +1$/m);
    // Not rotated: set does not print the secret.
    expect(set.stdout).not.toContain("whsec_");

    const shown = await admin(["tenants", "show", "a"]);
    expect(shown.code, shown.stderr).toBe(EXIT.completed);
    expect(shown.stdout).toMatch(/^max queued +1$/m);
    expect(shown.stdout).toMatch(/^max running +1 \(default\)$/m);
    expect(shown.stdout).toMatch(/^callback URL +http:\/\/127\.0\.0\.1:9\/agentcage$/m);
    expect(shown.stdout).toMatch(/^webhook secret +whsec_\S+$/m);

    const back = await admin(["tenants", "set", "a", "--max-queued", "default", "--callback-url", "none"]);
    expect(back.stdout).toMatch(/^max queued +\d+ \(default\)$/m);
    expect(back.stdout).toMatch(/^callback URL +none$/m);

    const listed = await admin(["tenants", "ls"]);
    expect(listed.stdout).toMatch(/^a +1 \(default\) +\d+ \(default\) +none \(default\)/m);

    const missing = await admin(["tenants", "show", "nobody"]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain('HTTP 404 not_found: no tenant "nobody"');
  });
});

describe("agentcage audit", () => {
  it("--since 1h shows key.create and key.revoke with the Operator's token as actor, and no secret", async () => {
    const audit = await admin(["audit", "--since", "1h"]);
    printed.push(audit.stdout, audit.stderr);
    expect(audit.code, audit.stderr).toBe(EXIT.completed);
    expect(audit.stdout).toMatch(/^TIME +ACTION +TENANT +KEY +RUN +TARGET +RESULT +REMOTE +COUNT\n/);
    expect(audit.stdout).toMatch(new RegExp(`^\\S+ +key\\.create +operator +operator-token +- +${prefix} +201 `, "m"));
    expect(audit.stdout).toMatch(new RegExp(`^\\S+ +key\\.revoke +operator +operator-token +- +${prefix} +200 `, "m"));
    expect(audit.stdout).toMatch(/^\S+ +tenant\.change +operator +operator-token +- +a +200 /m);
    // The revoked key's refused request: named by its prefix alone.
    expect(audit.stdout).toMatch(new RegExp(`^\\S+ +auth\\.refused +- +${prefix} +- +- +revoked `, "m"));
  });
});
