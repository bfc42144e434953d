// findCredential picks the one credential a Run gets. Each variable of a CLI is looked up in
// preference order, first in the environment and then in the secrets directory, so a subscription
// token in a file still wins over an API key in the environment. A secrets file is read only when
// it is a plain, private file of credential size.

import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CredentialError, findCredential } from "./credentials.js";
import { MAX_CREDENTIAL_BYTES } from "./limits.js";

const OAUTH = "sk-ant-oat01-subscription-token";
const ANTHROPIC_KEY = "sk-ant-api03-api-key";
const OPENAI_KEY = "sk-proj-openai-key";
const CODEX_KEY = "codex-api-key-value";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentcage-credentials-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a secrets file and sets its mode whatever the umask. */
async function secret(name: string, content: string | Buffer, mode = 0o600): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

/** The CredentialError findCredential rejects with; fails the test when it resolves. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    (value) => {
      throw new Error(`findCredential resolved with ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CredentialError);
  expect((error as Error).name).toBe("CredentialError");
  return (error as Error).message;
}

describe("findCredential", () => {
  describe("for claude", () => {
    it("takes CLAUDE_CODE_OAUTH_TOKEN from the environment as an oauth_token", async () => {
      expect(await findCredential("claude", { environment: { CLAUDE_CODE_OAUTH_TOKEN: OAUTH } })).toEqual({
        kind: "oauth_token",
        variable: "CLAUDE_CODE_OAUTH_TOKEN",
        source: "environment",
        value: OAUTH,
      });
    });

    it("takes ANTHROPIC_API_KEY from the environment as an api_key", async () => {
      expect(await findCredential("claude", { environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } })).toEqual({
        kind: "api_key",
        variable: "ANTHROPIC_API_KEY",
        source: "environment",
        value: ANTHROPIC_KEY,
      });
    });

    it("prefers the oauth token when the environment has both", async () => {
      expect(await findCredential("claude", { environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, CLAUDE_CODE_OAUTH_TOKEN: OAUTH } })).toEqual({
        kind: "oauth_token",
        variable: "CLAUDE_CODE_OAUTH_TOKEN",
        source: "environment",
        value: OAUTH,
      });
    });

    it("prefers the oauth token when the secrets directory has both", async () => {
      await secret("claude_code_oauth_token", OAUTH);
      await secret("anthropic_api_key", ANTHROPIC_KEY);
      expect(await findCredential("claude", { environment: {}, secretsDirectory: dir })).toEqual({
        kind: "oauth_token",
        variable: "CLAUDE_CODE_OAUTH_TOKEN",
        source: "secrets_directory",
        value: OAUTH,
      });
    });

    it("prefers an oauth token in the secrets directory over an API key in the environment", async () => {
      await secret("claude_code_oauth_token", OAUTH);
      expect(await findCredential("claude", { environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, secretsDirectory: dir })).toEqual({
        kind: "oauth_token",
        variable: "CLAUDE_CODE_OAUTH_TOKEN",
        source: "secrets_directory",
        value: OAUTH,
      });
    });

    it("prefers an oauth token in the environment over an API key in the secrets directory", async () => {
      await secret("anthropic_api_key", ANTHROPIC_KEY);
      expect(await findCredential("claude", { environment: { CLAUDE_CODE_OAUTH_TOKEN: OAUTH }, secretsDirectory: dir })).toEqual({
        kind: "oauth_token",
        variable: "CLAUDE_CODE_OAUTH_TOKEN",
        source: "environment",
        value: OAUTH,
      });
    });

    it("falls back to an API key in the secrets directory", async () => {
      await secret("anthropic_api_key", ANTHROPIC_KEY);
      expect(await findCredential("claude", { environment: {}, secretsDirectory: dir })).toEqual({
        kind: "api_key",
        variable: "ANTHROPIC_API_KEY",
        source: "secrets_directory",
        value: ANTHROPIC_KEY,
      });
    });
  });

  describe("for codex", () => {
    it("takes OPENAI_API_KEY before CODEX_API_KEY", async () => {
      expect(await findCredential("codex", { environment: { CODEX_API_KEY: CODEX_KEY, OPENAI_API_KEY: OPENAI_KEY } })).toEqual({
        kind: "api_key",
        variable: "OPENAI_API_KEY",
        source: "environment",
        value: OPENAI_KEY,
      });
    });

    it("takes CODEX_API_KEY when there is no OPENAI_API_KEY", async () => {
      expect(await findCredential("codex", { environment: { CODEX_API_KEY: CODEX_KEY } })).toEqual({
        kind: "api_key",
        variable: "CODEX_API_KEY",
        source: "environment",
        value: CODEX_KEY,
      });
    });

    it("reads openai_api_key from the secrets directory", async () => {
      await secret("openai_api_key", OPENAI_KEY);
      expect(await findCredential("codex", { environment: {}, secretsDirectory: dir })).toEqual({
        kind: "api_key",
        variable: "OPENAI_API_KEY",
        source: "secrets_directory",
        value: OPENAI_KEY,
      });
    });

    it("ignores claude's variables", async () => {
      expect(await findCredential("codex", { environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, CLAUDE_CODE_OAUTH_TOKEN: OAUTH } })).toEqual({
        kind: "none",
        looked: ["$OPENAI_API_KEY", "$CODEX_API_KEY"],
      });
    });
  });

  describe("between the environment and the secrets directory", () => {
    it("takes the environment's value of the same variable", async () => {
      await secret("anthropic_api_key", "sk-ant-from-the-file");
      expect(await findCredential("claude", { environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, secretsDirectory: dir })).toEqual({
        kind: "api_key",
        variable: "ANTHROPIC_API_KEY",
        source: "environment",
        value: ANTHROPIC_KEY,
      });
    });

    it("trims the environment's value", async () => {
      expect(await findCredential("claude", { environment: { ANTHROPIC_API_KEY: `  ${ANTHROPIC_KEY}\n` } })).toMatchObject({ value: ANTHROPIC_KEY });
    });

    it("trims a file's content", async () => {
      await secret("anthropic_api_key", `\n  ${ANTHROPIC_KEY}  \r\n`);
      expect(await findCredential("claude", { environment: {}, secretsDirectory: dir })).toEqual({
        kind: "api_key",
        variable: "ANTHROPIC_API_KEY",
        source: "secrets_directory",
        value: ANTHROPIC_KEY,
      });
    });

    it("ignores an empty or blank environment value and goes on looking", async () => {
      await secret("claude_code_oauth_token", OAUTH);
      expect(await findCredential("claude", { environment: { CLAUDE_CODE_OAUTH_TOKEN: "   ", ANTHROPIC_API_KEY: "" }, secretsDirectory: dir })).toEqual({
        kind: "oauth_token",
        variable: "CLAUDE_CODE_OAUTH_TOKEN",
        source: "secrets_directory",
        value: OAUTH,
      });
    });

    it("ignores an empty or blank file and goes on looking", async () => {
      await secret("claude_code_oauth_token", " \n\t");
      await secret("anthropic_api_key", "");
      expect(await findCredential("claude", { environment: { ANTHROPIC_API_KEY: " " }, secretsDirectory: dir })).toEqual({
        kind: "none",
        looked: ["$CLAUDE_CODE_OAUTH_TOKEN", join(dir, "claude_code_oauth_token"), "$ANTHROPIC_API_KEY", join(dir, "anthropic_api_key")],
      });
    });

    it("reads only lower-case file names", async () => {
      await secret("ANTHROPIC_API_KEY", ANTHROPIC_KEY);
      expect(await findCredential("claude", { environment: {}, secretsDirectory: dir })).toEqual({
        kind: "none",
        looked: ["$CLAUDE_CODE_OAUTH_TOKEN", join(dir, "claude_code_oauth_token"), "$ANTHROPIC_API_KEY", join(dir, "anthropic_api_key")],
      });
    });

    it("accepts a read-only 0400 file", async () => {
      await secret("anthropic_api_key", ANTHROPIC_KEY, 0o400);
      expect(await findCredential("claude", { environment: {}, secretsDirectory: dir })).toMatchObject({ kind: "api_key", value: ANTHROPIC_KEY });
    });
  });

  describe("when there is none", () => {
    it("lists the variables it looked at", async () => {
      expect(await findCredential("claude", { environment: {} })).toEqual({ kind: "none", looked: ["$CLAUDE_CODE_OAUTH_TOKEN", "$ANTHROPIC_API_KEY"] });
    });

    it("lists the variables and the secrets files it looked at, in order", async () => {
      expect(await findCredential("codex", { environment: {}, secretsDirectory: dir })).toEqual({
        kind: "none",
        looked: ["$OPENAI_API_KEY", join(dir, "openai_api_key"), "$CODEX_API_KEY", join(dir, "codex_api_key")],
      });
    });

    it("treats a missing secrets directory as holding nothing", async () => {
      const missing = join(dir, "absent");
      expect(await findCredential("claude", { environment: {}, secretsDirectory: missing })).toEqual({
        kind: "none",
        looked: ["$CLAUDE_CODE_OAUTH_TOKEN", join(missing, "claude_code_oauth_token"), "$ANTHROPIC_API_KEY", join(missing, "anthropic_api_key")],
      });
    });
  });

  describe("refuses a secrets file", () => {
    it.each([0o644, 0o640, 0o604])("of mode %o, quoting the path and saying chmod 600", async (mode) => {
      const path = await secret("anthropic_api_key", ANTHROPIC_KEY, mode);
      expect(await refusal(findCredential("claude", { environment: {}, secretsDirectory: dir }))).toBe(
        `secrets file ${JSON.stringify(path)} is mode 0${mode.toString(8)}, readable by others; chmod 600 it`,
      );
    });

    it("that is a symlink, even to a good file", async () => {
      const target = await secret("real-token", OAUTH);
      const path = join(dir, "claude_code_oauth_token");
      await symlink(target, path);
      expect(await refusal(findCredential("claude", { environment: {}, secretsDirectory: dir }))).toBe(
        `secrets file ${JSON.stringify(path)} cannot be opened (ELOOP); make it a regular file readable by this process`,
      );
    });

    it("that is a directory", async () => {
      const path = join(dir, "claude_code_oauth_token");
      await mkdir(path, { mode: 0o700 });
      expect(await refusal(findCredential("claude", { environment: {}, secretsDirectory: dir }))).toBe(
        `secrets file ${JSON.stringify(path)} is not a regular file; write the credential into a plain file`,
      );
    });

    it("that is a FIFO, without waiting for a writer", async () => {
      const path = join(dir, "claude_code_oauth_token");
      execFileSync("mkfifo", ["-m", "600", path]);
      expect(await refusal(findCredential("claude", { environment: {}, secretsDirectory: dir }))).toBe(
        `secrets file ${JSON.stringify(path)} is not a regular file; write the credential into a plain file`,
      );
    });

    it("over MAX_CREDENTIAL_BYTES", async () => {
      const path = await secret("anthropic_api_key", Buffer.alloc(MAX_CREDENTIAL_BYTES + 1, "k"));
      expect(await refusal(findCredential("claude", { environment: {}, secretsDirectory: dir }))).toBe(
        `secrets file ${JSON.stringify(path)} is ${MAX_CREDENTIAL_BYTES + 1} bytes, over ${MAX_CREDENTIAL_BYTES} (MAX_CREDENTIAL_BYTES); it should hold one credential`,
      );
    });

    it("even when a later variable's file would be good", async () => {
      const path = await secret("claude_code_oauth_token", OAUTH, 0o644);
      await secret("anthropic_api_key", ANTHROPIC_KEY);
      expect(await refusal(findCredential("claude", { environment: {}, secretsDirectory: dir }))).toContain(JSON.stringify(path));
    });
  });

  it("accepts a file of exactly MAX_CREDENTIAL_BYTES", async () => {
    await secret("anthropic_api_key", Buffer.alloc(MAX_CREDENTIAL_BYTES, "k"));
    expect(await findCredential("claude", { environment: {}, secretsDirectory: dir })).toMatchObject({
      kind: "api_key",
      value: "k".repeat(MAX_CREDENTIAL_BYTES),
    });
  });

  it("never opens a secrets file when the environment already has the credential", async () => {
    await secret("claude_code_oauth_token", OAUTH, 0o644);
    expect(await findCredential("claude", { environment: { CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-env-token" }, secretsDirectory: dir })).toMatchObject({
      source: "environment",
      value: "sk-ant-oat01-env-token",
    });
  });
});
