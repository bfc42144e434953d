// Sessions resume across fresh containers, with the real claude and codex CLIs against the stand-in
// model: Run 1 answers; Run 2 resumes Run 1's session in a container of its own and completes, and
// the stand-in sees Run 1's turn in Run 2's request. A session with no kept store ends at once.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentRunner } from "../index.js";
import { capturingLogger, containersOfRun } from "../../test/support/engine.js";
import { AGENT_IMAGE, STAND_IN_PORT, startStandInModel } from "../../test/support/stand-in-container.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-sessions-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.each(["claude", "codex"] as const)("a %s session", (cli) => {
  it("is resumed by a later Run in a fresh container, which sends the earlier turn again", async () => {
    const standIn = await startStandInModel("plain");
    try {
      const { logger, lines } = capturingLogger();
      const runner = createAgentRunner({
        image: AGENT_IMAGE,
        environment: { ANTHROPIC_API_KEY: "sk-stand-in-session-key", OPENAI_API_KEY: "sk-stand-in-session-key" },
        staging: { runtimeDir: join(scratch, `runs-${cli}`) },
        sessions: true,
        networks: [standIn.network],
        anthropicBaseUrl: `http://127.0.0.1:${STAND_IN_PORT}`,
        codexProvider: { baseUrl: `http://127.0.0.1:${STAND_IN_PORT}/v1` },
        apiRetries: 0,
        logger,
      });
      const first = await runner.run({ cli, timeoutSeconds: 120 }, "FIRST-TURN: remember the word PELICAN.");
      expect(first).toMatchObject({ ok: true, reason: "completed" });
      const sessionId = first.result?.sessionId as string;
      expect(first.session).toEqual({ id: sessionId, kept: true });
      const before = (await standIn.requests()).length;

      const second = await runner.run({ cli, timeoutSeconds: 120, resumeSession: sessionId }, "SECOND-TURN: which word?");
      expect(second, lines.join("\n")).toMatchObject({ ok: true, reason: "completed", result: { sessionId }, session: { id: sessionId, kept: true } });
      const resumed = (await standIn.requests()).slice(before);
      const texts = resumed.flatMap((request) => (request.history ?? []).map((turn) => turn.text)).join("\n");
      expect(texts).toContain("FIRST-TURN: remember the word PELICAN.");
      expect(texts).toContain("SECOND-TURN: which word?");
      expect(containersOfRun(second.runId)).toEqual([]);

      const unknown = await runner.run({ cli, resumeSession: "00000000-0000-4000-8000-000000000000" }, "hello");
      expect(unknown).toMatchObject({ ok: false, reason: "invalid_request" });
      expect(unknown.error).toContain("has no kept store");
      expect(unknown.exit).toBeUndefined();
    } finally {
      await standIn.stop();
    }
  }, 120_000);
});

describe("a runner that keeps no sessions", () => {
  it("refuses resumeSession before any container, saying what to declare", async () => {
    const runner = createAgentRunner({ image: AGENT_IMAGE, environment: { ANTHROPIC_API_KEY: "sk-no-sessions-key" }, logger: capturingLogger().logger });
    const outcome = await runner.run({ cli: "claude", resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" }, "hello");
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(outcome.error).toContain("sessions: true");
  });
});
