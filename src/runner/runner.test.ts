// The agent runner before any container exists: a bad request or a missing credential is an
// Outcome (run never rejects), and commandFor shows exactly one credential, by name only.
// Its engine refuses every call (as an engine nobody started does), so nothing here needs a daemon.

import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUnreachableEngine } from "../../test/support/fake-engine.js";
import { claudeArgs, codexArgs, AgentRequestError, parseAgentRequest } from "../agents/index.js";
import { createAgentRunner } from "./runner.js";
import type { AgentRunnerOptions } from "./runner-options.js";

const IMAGE = "agentcage-agent:test";
const nowhere = createUnreachableEngine();
const silent = pino({ level: "silent" });

const OAUTH = "sk-ant-oat01-runner-test-token";
const ANTHROPIC_KEY = "sk-ant-api03-runner-test-key";
const OPENAI_KEY = "sk-proj-runner-test-key";
const PROMPT = "Summarise /work/README.md in one line.";

function runner(options: Partial<AgentRunnerOptions> = {}) {
  return createAgentRunner({ image: IMAGE, logger: silent, engine: nowhere, environment: {}, ...options });
}

/** The outcome of a Run refused before it started, whatever its run id. */
function refused(reason: string, error: string, cli?: string) {
  return {
    runId: expect.stringMatching(/^[0-9a-f]{16}$/),
    ok: false,
    reason,
    error,
    durationMs: 0,
    stdoutBytes: 0,
    stderrBytes: 0,
    stderr: "",
    credential: "none",
    ...(cli === undefined ? {} : { cli }),
  };
}

/** Every word that follows an `--env`, in order. */
function envWords(args: readonly string[]): string[] {
  return args.flatMap((word, i) => (word === "--env" ? [args[i + 1] ?? ""] : []));
}

/** The agent's own words: everything after the image and the Run's own timer (`timeout -s TERM -k GRACE SECONDS`). */
function agentWords(args: readonly string[]): string[] {
  expect(args).toContain(IMAGE);
  const afterImage = args.slice(args.indexOf(IMAGE) + 1);
  expect(afterImage.slice(0, 4)).toEqual(["timeout", "-s", "TERM", "-k"]);
  expect(afterImage.slice(4, 6)).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
  return afterImage.slice(6);
}

const PUBLIC_ENV_WORDS = [
  "PATH=/usr/local/bin:/usr/bin:/bin",
  "LANG=C.UTF-8",
  "TZ=UTC",
  "HOME=/tmp",
  "TMPDIR=/var/tmp",
  "DISABLE_AUTOUPDATER=1",
  "CLAUDE_CONFIG_DIR=/tmp/claude-config",
  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
  "DISABLE_TELEMETRY=1",
  "DISABLE_ERROR_REPORTING=1",
  "DISABLE_BUG_COMMAND=1",
  "DISABLE_FEEDBACK_COMMAND=1",
  "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
  "DISABLE_UPDATES=1",
  "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
  "ENABLE_CLAUDEAI_MCP_SERVERS=false",
  "CLAUDE_CODE_MAX_RETRIES=2",
  "CODEX_HOME=/tmp",
];

let secrets: string;

beforeEach(async () => {
  secrets = await mkdtemp(join(tmpdir(), "agentcage-runner-"));
});

afterEach(async () => {
  await rm(secrets, { recursive: true, force: true });
});

describe("createAgentRunner", () => {
  describe("run with an invalid request", () => {
    it("resolves as invalid_request with no credential, quoting the problem", async () => {
      const outcome = await runner({ environment: { CLAUDE_CODE_OAUTH_TOKEN: OAUTH } }).run({ cli: "claude", model: "-rf" }, PROMPT);
      expect(outcome).toEqual(
        refused("invalid_request", 'the agent request is invalid: model "-rf" is not a model id; use letters, digits and ._:/@[]- and do not start with "-"'),
      );
    });

    it("resolves for a value that is not a request at all", async () => {
      const outcome = await runner().run("claude" as never, PROMPT);
      expect(outcome).toEqual(refused("invalid_request", 'the agent request is invalid: the agent request "claude" is not an object; send an object'));
    });
  });

  describe("run with a budget codex cannot be held to", () => {
    it.each([
      [{}, 'network policy "none"'],
      [{ networkPolicy: "open" as const }, 'network policy "open"'],
      [{ networks: ["container:stand-in"] }, "networks declared by hand"],
    ])("refuses codex's maxTokens and maxCostUsd before the Run under %j, naming the policies that hold them", async (options, where) => {
      const outcome = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY }, ...options }).run(
        { cli: "codex", budget: { maxTokens: 5000, maxCostUsd: 0.5 } },
        PROMPT,
      );
      expect(outcome).toEqual(
        refused(
          "invalid_request",
          `budget.maxTokens 5000 and budget.maxCostUsd 0.5 cannot be held for codex under ${where}: codex prints its tokens only when it ends, so only the egress proxy of the networkPolicy "model" or "allowlist" meters them while it runs; use one of those, or leave the caps out`,
          "codex",
        ),
      );
    });

    it("takes codex's maxTurns and maxWallSeconds anywhere, and claude's token and dollar caps", async () => {
      const codex = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY } }).run({ cli: "codex", budget: { maxTurns: 3, maxWallSeconds: 60 } }, PROMPT);
      expect(codex.reason).not.toBe("invalid_request");
      const claude = await runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).run(
        { cli: "claude", budget: { maxTokens: 5000, maxCostUsd: 0.5 } },
        PROMPT,
      );
      expect(claude.reason).not.toBe("invalid_request");
    });
  });

  describe("a runner whose model is the stand-in", () => {
    it("says so in each Outcome of a Run (its usage and cost are made up), and a runner of a real model says nothing", async () => {
      const standIn = await runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, standIn: true }).run({ cli: "claude" }, PROMPT);
      expect(standIn.reason).toBe("unavailable");
      expect(standIn.standIn).toBe(true);
      const real = await runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).run({ cli: "claude" }, PROMPT);
      expect(real).not.toHaveProperty("standIn");
    });

    it("refuses a standIn that is not true or false", () => {
      expect(() => runner({ standIn: "yes" as never })).toThrow(
        'standIn "yes" is not true or false; write true for a runner whose model is the stand-in, or leave it out',
      );
    });
  });

  describe("run with no credential", () => {
    it("resolves as unavailable, naming the variables for claude", async () => {
      expect(await runner().run({ cli: "claude" }, PROMPT)).toEqual(
        refused("unavailable", "no credential for claude: set $CLAUDE_CODE_OAUTH_TOKEN or $ANTHROPIC_API_KEY", "claude"),
      );
    });

    it("resolves as unavailable, naming the variables for codex", async () => {
      expect(await runner().run({ cli: "codex" }, PROMPT)).toEqual(
        refused("unavailable", "no credential for codex: set $OPENAI_API_KEY or $CODEX_API_KEY", "codex"),
      );
    });

    it("names the secrets files too when there is a secrets directory", async () => {
      expect(await runner({ secretsDirectory: secrets }).run({ cli: "claude" }, PROMPT)).toEqual(
        refused(
          "unavailable",
          `no credential for claude: set $CLAUDE_CODE_OAUTH_TOKEN or $ANTHROPIC_API_KEY, or write one of ${JSON.stringify(join(secrets, "claude_code_oauth_token"))}, ${JSON.stringify(join(secrets, "anthropic_api_key"))} (mode 0600)`,
          "claude",
        ),
      );
    });

    it("does not take the other CLI's credential", async () => {
      const outcome = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY } }).run({ cli: "claude" }, PROMPT);
      expect(outcome).toMatchObject({ reason: "unavailable", credential: "none", cli: "claude" });
    });
  });

  describe("run with a secrets file others can read", () => {
    it("resolves as unavailable, quoting the path", async () => {
      const path = join(secrets, "anthropic_api_key");
      await writeFile(path, ANTHROPIC_KEY);
      await chmod(path, 0o644);
      expect(await runner({ secretsDirectory: secrets }).run({ cli: "claude" }, PROMPT)).toEqual(
        refused("unavailable", `secrets file ${JSON.stringify(path)} is mode 0644, readable by others; chmod 600 it`, "claude"),
      );
    });
  });

  describe("run with a credential and an unreachable engine", () => {
    it("reports the credential's kind and never its value, in the Outcome or the logs", async () => {
      const lines: string[] = [];
      const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
      const outcome = await runner({ logger, environment: { CLAUDE_CODE_OAUTH_TOKEN: OAUTH, ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).run(
        { cli: "claude" },
        PROMPT,
      );
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable", credential: "oauth_token", cli: "claude" });
      expect(lines.length).toBeGreaterThan(0);
      for (const text of [JSON.stringify(outcome), ...lines]) {
        expect(text).not.toContain(OAUTH);
        expect(text).not.toContain(ANTHROPIC_KEY);
      }
    });
  });

  describe("commandFor for claude", () => {
    it("passes the oauth token by name only, its value in env", async () => {
      const command = await runner({ environment: { CLAUDE_CODE_OAUTH_TOKEN: OAUTH, ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).commandFor({ cli: "claude" }, PROMPT);
      expect(envWords(command.args)).toEqual([...PUBLIC_ENV_WORDS, "CLAUDE_CODE_OAUTH_TOKEN"]);
      expect(command.env).toEqual({ CLAUDE_CODE_OAUTH_TOKEN: OAUTH });
      expect(command.redactedArgs).toEqual(command.args);
      for (const word of [...command.args, ...command.redactedArgs]) {
        expect(word).not.toContain(OAUTH);
        expect(word).not.toContain(ANTHROPIC_KEY);
      }
    });

    it("passes the API key by name when there is no oauth token", async () => {
      const command = await runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).commandFor({ cli: "claude" }, PROMPT);
      expect(envWords(command.args)).toEqual([...PUBLIC_ENV_WORDS, "ANTHROPIC_API_KEY"]);
      expect(command.env).toEqual({ ANTHROPIC_API_KEY: ANTHROPIC_KEY });
      for (const word of [...command.args, ...command.redactedArgs]) expect(word).not.toContain(ANTHROPIC_KEY);
    });

    it("passes a credential from the secrets directory the same way", async () => {
      const path = join(secrets, "claude_code_oauth_token");
      await writeFile(path, `${OAUTH}\n`);
      await chmod(path, 0o600);
      const command = await runner({ secretsDirectory: secrets }).commandFor({ cli: "claude" }, PROMPT);
      expect(envWords(command.args)).toEqual([...PUBLIC_ENV_WORDS, "CLAUDE_CODE_OAUTH_TOKEN"]);
      expect(command.env).toEqual({ CLAUDE_CODE_OAUTH_TOKEN: OAUTH });
    });

    it("names the variable a Run would read when no credential is set, instead of refusing the plan", async () => {
      const claude = await runner().commandFor({ cli: "claude" }, PROMPT);
      expect(envWords(claude.args)).toEqual([...PUBLIC_ENV_WORDS, "CLAUDE_CODE_OAUTH_TOKEN"]);
      const codex = await runner().commandFor({ cli: "codex" }, PROMPT);
      expect(envWords(codex.args).at(-1)).toBe("OPENAI_API_KEY");
    });

    it("adds ANTHROPIC_BASE_URL to the public environment when given", async () => {
      const command = await runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, anthropicBaseUrl: "http://stand-in:8080" }).commandFor(
        { cli: "claude" },
        PROMPT,
      );
      expect(envWords(command.args)).toEqual([
        ...PUBLIC_ENV_WORDS.slice(0, -2),
        "ANTHROPIC_BASE_URL=http://stand-in:8080",
        ...PUBLIC_ENV_WORDS.slice(-2),
        "ANTHROPIC_API_KEY",
      ]);
    });

    it("runs claudeArgs after the image, with the prompt on stdin only", async () => {
      const request = { cli: "claude", model: "sonnet", maxTurns: 3, systemPrompt: "Be brief." } as const;
      const command = await runner({ environment: { CLAUDE_CODE_OAUTH_TOKEN: OAUTH } }).commandFor(request, PROMPT);
      expect(command.command).toBe("docker");
      expect(agentWords(command.args)).toEqual(claudeArgs(parseAgentRequest(request)));
      expect(command.stdin).toBe(PROMPT);
      for (const word of command.args) expect(word).not.toContain(PROMPT);
    });
  });

  describe("commandFor for codex", () => {
    it("runs codex exec --json after the image, ending with - to read the prompt from stdin", async () => {
      const command = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY } }).commandFor({ cli: "codex", model: "gpt-5.5" }, PROMPT);
      const words = agentWords(command.args);
      expect(words.slice(0, 3)).toEqual(["codex", "exec", "--json"]);
      expect(words.at(-1)).toBe("-");
      expect(words).toEqual(codexArgs(parseAgentRequest({ cli: "codex", model: "gpt-5.5" }), { workdir: "/work" }));
      expect(command.stdin).toBe(PROMPT);
      for (const word of command.args) expect(word).not.toContain(PROMPT);
    });

    it("passes OPENAI_API_KEY by name only, its value in env", async () => {
      const command = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY, CODEX_API_KEY: "codex-runner-test-key" } }).commandFor(
        { cli: "codex" },
        PROMPT,
      );
      expect(envWords(command.args)).toEqual([...PUBLIC_ENV_WORDS, "OPENAI_API_KEY"]);
      expect(command.env).toEqual({ OPENAI_API_KEY: OPENAI_KEY });
      for (const word of [...command.args, ...command.redactedArgs]) expect(word).not.toContain(OPENAI_KEY);
    });

    it("passes its codexProvider to codexArgs, with the runner's apiRetries unless the provider names its own", async () => {
      const provider = { baseUrl: "http://stand-in:8080/v1" };
      const command = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY }, codexProvider: provider }).commandFor({ cli: "codex" }, PROMPT);
      expect(agentWords(command.args)).toEqual(codexArgs(parseAgentRequest({ cli: "codex" }), { workdir: "/work", provider: { ...provider, maxRetries: 2 } }));
      const own = await runner({ environment: { OPENAI_API_KEY: OPENAI_KEY }, codexProvider: { ...provider, maxRetries: 5 }, apiRetries: 0 }).commandFor(
        { cli: "codex" },
        PROMPT,
      );
      expect(agentWords(own.args)).toEqual(codexArgs(parseAgentRequest({ cli: "codex" }), { workdir: "/work", provider: { ...provider, maxRetries: 5 } }));
    });

    it("refuses apiRetries out of range", () => {
      expect(() => runner({ apiRetries: 11 })).toThrow("apiRetries 11 is out of range");
    });

    it("sends the key in the variable the codexProvider's env_key names, wherever it was found", async () => {
      const command = await runner({
        environment: { CODEX_API_KEY: "codex-runner-test-key" },
        codexProvider: { baseUrl: "http://stand-in:8080/v1" },
      }).commandFor({ cli: "codex" }, PROMPT);
      expect(envWords(command.args).at(-1)).toBe("OPENAI_API_KEY");
      expect(command.env).toEqual({ OPENAI_API_KEY: "codex-runner-test-key" });
      expect(agentWords(command.args).find((word) => word.startsWith("model_providers.agentcage="))).toContain('env_key = "OPENAI_API_KEY"');
    });

    it("looks up a gateway's own env_key first and sends the key under that name", async () => {
      const environment = { GATEWAY_KEY: "gateway-runner-test-key", OPENAI_API_KEY: OPENAI_KEY };
      const command = await runner({ environment, codexProvider: { baseUrl: "http://gw:8080/v1", envKey: "GATEWAY_KEY" } }).commandFor(
        { cli: "codex" },
        PROMPT,
      );
      expect(command.env).toEqual({ GATEWAY_KEY: "gateway-runner-test-key" });
    });
  });

  describe("manifestFor", () => {
    it("renders the same Run as commandFor: the agent's words, the env names, the credential a key of the Run's Secret", async () => {
      const agents = runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, user: "10002:10002" });
      const request = { cli: "claude", model: "sonnet", maxTurns: 3 } as const;
      const command = await agents.commandFor(request, PROMPT);
      const { pod, networkPolicy } = await agents.manifestFor(request, PROMPT, { network: { policy: "none" }, namespace: "agents" });
      const agent = pod.spec?.containers[0];
      expect(agent?.args?.slice(6)).toEqual(agentWords(command.args));
      expect(agent?.env?.map((e) => (e.value === undefined ? e.name : `${e.name}=${e.value}`))).toEqual(envWords(command.args));
      expect(agent?.env?.at(-1)?.valueFrom?.secretKeyRef).toEqual({ name: `${pod.metadata?.name}-env`, key: "ANTHROPIC_API_KEY", optional: false });
      expect(networkPolicy.spec?.egress).toEqual([]);
      expect(JSON.stringify(pod)).not.toContain(ANTHROPIC_KEY);
      expect(JSON.stringify(pod)).not.toContain(PROMPT);
    });

    it("refuses pod options that name no network policy, and what a Pod cannot honour, naming it", async () => {
      const agents = runner({ environment: { ANTHROPIC_API_KEY: ANTHROPIC_KEY }, user: "10002:10002" });
      await expect(agents.manifestFor({ cli: "claude" }, PROMPT, {} as never)).rejects.toThrow(/manifestFor's pod options \{\} name no network policy/);
      await expect(agents.manifestFor({ cli: "claude" }, PROMPT, { network: { policy: "none" }, namespace: "No" })).rejects.toMatchObject({
        code: "kubernetes_refused",
        message: expect.stringContaining('namespace "No" is not a Kubernetes name'),
      });
    });
  });

  describe("commandFor a request that cannot run", () => {
    it("throws AgentRequestError for an invalid request", async () => {
      await expect(runner({ environment: { OPENAI_API_KEY: OPENAI_KEY } }).commandFor({ cli: "codex", effort: "HIGH" }, PROMPT)).rejects.toThrow(
        new AgentRequestError(
          'the agent request is invalid: effort "HIGH" is not one codex takes; write one of none, minimal, low, medium, high, xhigh, max, ultra',
        ),
      );
    });
  });
});
