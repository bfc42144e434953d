// An Idempotency-Key under concurrent submits, over a real socket and the real app and RunService
// (a scripted runner stands in for the engine): one key makes one Run, however many submits race
// for it, and every answer is that Run or the 422 naming it.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useAppOnSocket } from "../../../test/support/app.js";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../../runner/index.js";
import { createRunService, type RunService } from "./runs.js";
import { memoryRuns } from "./store-memory.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-idempotency-"));

/** A runner whose Runs go on until they are cancelled. */
const runner = {
  run: (_request: unknown, _prompt: string, options: AgentRunOptions) =>
    new Promise<AgentOutcome>((resolve) => {
      const cancelled = () =>
        resolve({
          runId: "r",
          ok: false,
          reason: "cancelled",
          error: "cancelled",
          durationMs: 1,
          stdoutBytes: 0,
          stderrBytes: 0,
          stderr: "",
          credential: "api_key",
        });
      if (options.signal?.aborted === true) cancelled();
      else options.signal?.addEventListener("abort", cancelled);
    }),
} as unknown as AgentRunner;

let service: RunService;
const app = useAppOnSocket("idempotency", async () => {
  service = createRunService({ runner, ...memoryRuns(mkdtempSync(join(scratch, "rt-"))), slots: 1, queueBound: 100, sessions: false });
  await service.recover();
  return service;
});
afterAll(async () => {
  for (const record of service.live()) await service.cancel(record.id);
  rmSync(scratch, { recursive: true, force: true });
});

type Answer = { readonly status: number; readonly body: { readonly id?: string; readonly error?: string; readonly message?: string } };

async function post(body: unknown, key: string): Promise<Answer> {
  const response = await fetch(`${app.url()}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

describe("an Idempotency-Key sent by concurrent submits", () => {
  it("makes one Run: every answer is that Run (202 once, then 200) or the 422 naming it", async () => {
    const bodies = [
      { cli: "claude", prompt: "the one body" },
      { cli: "claude", prompt: "the other body" },
    ];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => post(bodies[n % 2], "one-new-key")));

    const { records: runs } = await service.page({ limit: 100 });
    expect(runs).toHaveLength(1);
    const made = runs[0]?.id ?? "";
    const asked = ((await service.request(made)) as { prompt: string }).prompt;
    for (const [n, answer] of answers.entries()) {
      if (bodies[n % 2]?.prompt === asked) expect(answer).toMatchObject({ status: expect.toBeOneOf([200, 202]), body: { id: made } });
      else expect(answer).toMatchObject({ status: 422, body: { error: "idempotency_key_reused", message: expect.stringContaining(`Run ${made} `) } });
    }
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
  });
});
