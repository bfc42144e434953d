// A Run's masker hides a secret file whole and the tokens inside it: each line and, for a JSON
// file, each string value that may be a credential, so an agent that prints one token of a login
// file shows nothing of it, while a short plain value ("chatgpt") stays readable in its answers.

import { describe, expect, it } from "vitest";
import { REDACTED } from "../../redact/index.js";
import { runMasker, secretFileValues } from "./run-masker.js";

const AUTH_JSON = `${JSON.stringify(
  {
    tokens: { access_token: "eyJhbGciOi.access-0123456789", refresh_token: "rt_refresh-9876543210", account_id: "acct-5555" },
    api_keys: ["openid-key-1"],
    auth_mode: "chatgpt",
    last_refresh: "2026-11-30T12:00:00.000000Z",
    short: "abc",
    count: 3,
  },
  null,
  2,
)}\n`;

describe("secretFileValues", () => {
  it("names the whole text, each non-empty line trimmed, and the strings of a JSON file under a secret key or long enough to be one", () => {
    const values = secretFileValues(AUTH_JSON);
    expect(values[0]).toBe(AUTH_JSON);
    expect(values).toContain('"access_token": "eyJhbGciOi.access-0123456789",');
    expect(values).toEqual(expect.arrayContaining(["eyJhbGciOi.access-0123456789", "rt_refresh-9876543210", "openid-key-1", "2026-11-30T12:00:00.000000Z"]));
    expect(values).not.toContain("access_token");
    expect(values).not.toContain("chatgpt");
    expect(values).not.toContain("acct-5555");
    expect(values).not.toContain("");
  });

  it("names the lines of a file that is not JSON", () => {
    expect(secretFileValues("[default]\r\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n\n")).toEqual([
      "[default]\r\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n\n",
      "[default]",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG",
    ]);
  });
});

describe("runMasker", () => {
  it("masks each token of a secret file on its own, in its encodings too, but not values too short to be credentials", () => {
    const masker = runMasker([], { secretFiles: [{ agentPath: "/home/agent/.codex/auth.json", content: new TextEncoder().encode(AUTH_JSON) }] });
    const refresh = "rt_refresh-9876543210";
    expect(masker.mask(`refresh ${refresh} in b64 ${Buffer.from(refresh).toString("base64")} hex ${Buffer.from(refresh).toString("hex")}`)).toBe(
      `refresh ${REDACTED} in b64 ${REDACTED} hex ${REDACTED}`,
    );
    expect(masker.mask("key openid-key-1")).toBe(`key ${REDACTED}`);
    expect(masker.mask("mode chatgpt, short abc, access_token")).toBe("mode chatgpt, short abc, access_token");
  });

  it("masks the declaration's values, the Run's env and its named secrets", () => {
    const masker = runMasker(["declared-0123456"], { env: { API_TOKEN: "run-env-0123456" }, secrets: ["named-0123456"] });
    expect(masker.mask("declared-0123456 run-env-0123456 named-0123456")).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
  });
});
