// What the tenancy attack tests share: a real service (stand-in model, real engine) on a free
// loopback port with a logger whose every line is kept, keys made over HTTP with the Operator's
// token, and calls as any key, each answer's status and body text read once and kept.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { serve, type RunningService, type ServeOptions } from "../../src/server/index.js";
import { capturingLogger } from "./engine.js";

export type Answer = { readonly status: number; readonly headers: Headers; readonly text: string; readonly json: () => Record<string, unknown> };

export type TenantService = {
  readonly running: () => RunningService;
  readonly operator: () => string;
  readonly runtimeDir: string;
  /** Every line the service logged. */
  readonly logLines: readonly string[];
  /** Every answer's body text, to look for secrets in. */
  readonly bodies: readonly string[];
  readonly call: (key: string, path: string, init?: RequestInit) => Promise<Answer>;
  /** A new key, made with the Operator's token: its whole text and its prefix. */
  readonly makeKey: (tenant: string, scope: string, expiresAt?: string) => Promise<{ readonly key: string; readonly prefix: string }>;
  /** Submits as `key` and answers the new Run's id, expecting 202. */
  readonly submit: (key: string, body: Record<string, unknown>, headers?: Record<string, string>) => Promise<string>;
  /** The Run as `key` sees it once it has ended. */
  readonly ended: (key: string, id: string, withinMs?: number) => Promise<Record<string, unknown>>;
  /** Waits until the Run, as `key` sees it, is in one of `states`. */
  readonly reaches: (key: string, id: string, states: readonly string[], withinMs?: number) => Promise<void>;
  /** Stops the service now (afterAll then does nothing but remove its directory). */
  readonly stop: () => Promise<void>;
};

/** Registers beforeAll/afterAll that start and stop one service for the calling test file. */
export function useTenantService(name: string, options: Partial<ServeOptions> = {}): TenantService {
  const root = mkdtempSync(join(tmpdir(), `agentcage-${name}-`));
  const runtimeDir = join(root, "rt");
  const { logger, lines } = capturingLogger();
  const bodies: string[] = [];
  let running: RunningService | undefined;
  let stopped = false;
  let operator = "";
  beforeAll(async () => {
    running = await serve({ runtimeDir, port: 0, standIn: true, slots: 2, logger, environment: {}, ...options });
    operator = readFileSync(running.tokenFile as string, "utf8").trim();
  }, 60_000);
  afterAll(async () => {
    if (!stopped) await running?.stop(5_000);
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  const call = async (key: string, path: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetch(`${(running as RunningService).url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers },
    });
    const text = await response.text();
    bodies.push(text);
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  const runOf = async (key: string, id: string) => (await call(key, `/v1/runs/${id}`)).json();
  const reaches = async (key: string, id: string, states: readonly string[], withinMs = 60_000) => {
    const until = Date.now() + withinMs;
    for (;;) {
      const run = await runOf(key, id);
      if (states.includes(run["state"] as string)) return;
      if (Date.now() > until) throw new Error(`Run ${id} is ${String(run["state"])}, not ${states.join(" or ")}, after ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    running: () => running as RunningService,
    operator: () => operator,
    runtimeDir,
    logLines: lines,
    bodies,
    call,
    makeKey: async (tenant, scope, expiresAt) => {
      const made = await call(operator, "/v1/keys", {
        method: "POST",
        body: JSON.stringify({ tenant, scope, ...(expiresAt === undefined ? {} : { expiresAt }) }),
      });
      expect(made.status, made.text).toBe(201);
      const { key, prefix } = made.json() as { key: string; prefix: string };
      return { key, prefix };
    },
    submit: async (key, body, headers = {}) => {
      const answer = await call(key, "/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", ...body }), headers });
      expect(answer.status, answer.text).toBe(202);
      return answer.json()["id"] as string;
    },
    ended: async (key, id, withinMs = 90_000) => {
      await reaches(key, id, ["completed", "failed", "cancelled"], withinMs);
      return runOf(key, id);
    },
    reaches,
    stop: async () => {
      stopped = true;
      await running?.stop(5_000);
    },
  };
}
