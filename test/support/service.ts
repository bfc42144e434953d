// What the service's engine tests share: `agentcage serve` started on a free loopback port against
// the stand-in model, in a Staging Directory of its own, with the token it wrote; stopped after.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { serve, type RunningService, type ServeOptions } from "../../src/server/index.js";
import { capturingLogger } from "./engine.js";

export type TestService = {
  /** The service, once beforeAll has run. */
  readonly running: () => RunningService;
  readonly token: () => string;
  /** Where the service keeps everything (its runtime dir). */
  readonly runtimeDir: string;
};

/** Registers beforeAll/afterAll that start and stop one service for the calling test file. */
export function useTestService(
  name: string,
  options: Partial<Pick<ServeOptions, "slots" | "queueBound" | "image" | "sessions" | "sweepIntervalMs" | "allowPrivateCallbacks" | "runFiles">> = {},
): TestService {
  const root = mkdtempSync(join(tmpdir(), `agentcage-${name}-`));
  const runtimeDir = join(root, "rt");
  let running: RunningService | undefined;
  let token = "";
  beforeAll(async () => {
    running = await serve({ runtimeDir, port: 0, standIn: true, slots: 2, logger: capturingLogger().logger, environment: {}, ...options });
    token = readFileSync(running.tokenFile as string, "utf8").trim();
  }, 60_000);
  afterAll(async () => {
    await running?.stop(5_000);
    rmSync(root, { recursive: true, force: true });
  }, 60_000);
  return { running: () => running as RunningService, token: () => token, runtimeDir };
}
