// `agentcage serve`'s start as an operator meets it, a subprocess: what can refuse it (its port) is
// checked before any container starts, so a port in use is refused at once with no container made;
// a SIGINT or SIGTERM as the stand-in's (or the proxy's) container appears stops the start (exit
// 130) and leaves no container; a stand-in killed at its start is a refusal naming it (exit 2), and
// one held paused longer than the 20 s its start was once bounded by is waited for, saying so.
// The command's containers are told apart by its pid label, caught by the engine's events.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnv, startCommand } from "../../test/support/command.js";
import { atStart, containersWithLabel, pausedFor, unpause } from "../../test/support/at-start.js";
import { EXIT } from "./exit-codes.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-serve-start-"));
const env = commandEnv({ AGENTCAGE_TOKEN: "serve-start-test-token" });
let taken: Server;
let takenPort = 0;
/** What `agentcage --version` takes here, now: a command's own start, which the refusal of a taken port may take 3 times. */
let commandStartMs = 0;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  takenPort = (taken.address() as { port: number }).port;
  const began = performance.now();
  await startCommand(["--version"], env).finished;
  commandStartMs = performance.now() - began;
});
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

const STAND_IN = ["--stand-in"];
const BEHIND_THE_PROXY = ["--stand-in", "--network-policy", "model"];
const ownerOf = (flags: readonly string[]) => (flags.includes("--network-policy") ? "agentcage-egress" : "agentcage-stand-in");
const serveArgs = (name: string, flags: readonly string[], port = 0) => ["serve", "--port", String(port), "--runtime-dir", join(root, name), ...flags];

describe("agentcage serve's start", () => {
  it("refuses a port in use at once, before any container starts", async () => {
    const began = performance.now();
    const command = startCommand(serveArgs("taken", BEHIND_THE_PROXY, takenPort), env);
    const pid = command.child.pid as number;
    const anyStart = atStart({ label: [`agentcage.pid=${pid}`] }, "none");
    const done = await command.finished;
    const tookMs = performance.now() - began;
    expect(done.code, done.stderr).toBe(EXIT.usage);
    expect(done.stderr).toContain(`agentcage: --port ${takenPort} on 127.0.0.1 is already in use; pick another with --port, or --port 0 for a free one`);
    expect(tookMs).toBeLessThan(3 * Math.max(commandStartMs, 1000));
    // Whatever the engine was about to say of a container of this pid has been said by now.
    const started = await Promise.race([anyStart.caught.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 1000))]);
    anyStart.stop();
    expect(started).toBe(false);
    expect(await containersWithLabel(`agentcage.pid=${pid}`)).toEqual([]);
  }, 60_000);

  it.each([
    { signal: "SIGINT", what: "the stand-in's", flags: STAND_IN },
    { signal: "SIGTERM", what: "the proxy's", flags: BEHIND_THE_PROXY },
    { signal: "SIGINT", what: "the proxy's", flags: BEHIND_THE_PROXY },
  ] as const)(
    "stops at a $signal as $what container appears, saying so, and leaves no container",
    async ({ signal, flags }) => {
      const command = startCommand(serveArgs(`${signal}-${ownerOf(flags)}`, flags), env);
      const pid = command.child.pid as number;
      await atStart({ label: [`agentcage.pid=${pid}`, `agentcage.owner=${ownerOf(flags)}`] }, "none").caught;
      command.child.kill(signal);
      const done = await command.finished;
      expect(done.code, done.stderr).toBe(EXIT.cancelled);
      expect(done.stderr).toContain(`agentcage serve: ${signal} while starting: stopping what it started`);
      expect(done.stderr).toContain("agentcage serve: stopped while starting; nothing it started is left running");
      expect(await containersWithLabel(`agentcage.pid=${pid}`)).toEqual([]);
    },
    120_000,
  );

  it.each([
    { what: "the stand-in", flags: STAND_IN, words: /^agentcage: the stand-in model exited \(code 137/m },
    {
      what: "the proxy with the stand-in behind it",
      flags: BEHIND_THE_PROXY,
      words: /^agentcage: the egress proxy, with the stand-in model behind it, exited \(code 137\)/m,
    },
  ])(
    "refuses to start, naming it, when $what is killed at its start, and leaves nothing",
    async ({ flags, words }) => {
      const command = startCommand(serveArgs(`killed-${ownerOf(flags)}`, flags), env);
      const pid = command.child.pid as number;
      await atStart({ label: [`agentcage.pid=${pid}`, `agentcage.owner=${ownerOf(flags)}`] }, "kill").caught;
      const killedAt = performance.now();
      const done = await command.finished;
      expect(performance.now() - killedAt).toBeLessThan(15_000);
      expect(done.code, done.stderr).toBe(EXIT.usage);
      expect(done.stderr).toMatch(words);
      expect(await containersWithLabel(`agentcage.pid=${pid}`)).toEqual([]);
    },
    120_000,
  );

  it("waits out a stand-in held paused longer than 20 s at its start, saying so, then listens; SIGTERM drains it and leaves nothing", async () => {
    const command = startCommand(serveArgs("paused", STAND_IN), env);
    const pid = command.child.pid as number;
    const paused = await atStart({ label: [`agentcage.pid=${pid}`, "agentcage.owner=agentcage-stand-in"] }, "pause").caught;
    await pausedFor(25_000, command.finished);
    await unpause(paused);
    await command.stderrHas("agentcage serve: listening on http://127.0.0.1:", 60_000);
    expect(command.stderrSoFar()).toMatch(/^agentcage serve: the stand-in model is still starting \(its container runs; \d+ s so far\)$/m);
    command.child.kill("SIGTERM");
    const done = await command.finished;
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(await containersWithLabel(`agentcage.pid=${pid}`)).toEqual([]);
  }, 120_000);
});
