// Whether the control endpoint refuses connections: the one sign the control client gives that a
// proxy is gone, not slow. A socket nobody listens on refuses; one whose listener is busy (it
// accepts, never answers) does not; a connection made by a caller cannot tell.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstat, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEgressControlClient } from "./index.js";

const SECRET = randomBytes(32).toString("base64url");
let dir = "";
const servers: Server[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentcage-control-refusal-"));
});
afterAll(async () => {
  for (const server of servers) server.close();
  await rm(dir, { recursive: true, force: true });
});

function listening(socketPath: string): Promise<void> {
  // Accepts and never answers: a proxy that is busy (or paused) is like this.
  const server = createServer(() => undefined);
  servers.push(server);
  return new Promise((resolve) => server.listen(socketPath, resolve));
}

describe("the control endpoint's refusal", () => {
  it("is said when no socket is there, naming the code", async () => {
    const client = createEgressControlClient({ socketPath: join(dir, "none.sock"), secret: SECRET });
    expect(await client.refusal()).toBe("refuses connections on its control endpoint (ENOENT)");
  });

  it("is said when the socket is there and nothing listens on it: its process was killed", async () => {
    const path = join(dir, "killed.sock");
    const child = spawn(process.execPath, ["-e", `require("node:net").createServer().listen(${JSON.stringify(path)}, () => console.log("up"))`], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    await new Promise((resolve) => child.stdout?.once("data", resolve));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect((await lstat(path)).isSocket()).toBe(true);
    const client = createEgressControlClient({ socketPath: path, secret: SECRET });
    expect(await client.refusal()).toBe("refuses connections on its control endpoint (ECONNREFUSED)");
  });

  it("is not said of a listener that accepts and does not answer: slow is not gone", async () => {
    const path = join(dir, "busy.sock");
    await listening(path);
    const client = createEgressControlClient({ socketPath: path, secret: SECRET });
    expect(await client.refusal()).toBeUndefined();
  });

  it("is not said of a TCP port that answers, and is of one nothing listens on", async () => {
    const server = createServer(() => undefined);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    expect(await createEgressControlClient({ url: `http://127.0.0.1:${port}`, secret: SECRET }).refusal()).toBeUndefined();
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const freePort = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    expect(await createEgressControlClient({ url: `http://127.0.0.1:${freePort}`, secret: SECRET }).refusal()).toBe(
      "refuses connections on its control endpoint (ECONNREFUSED)",
    );
  });

  it("cannot be told over a connection the caller makes", async () => {
    const client = createEgressControlClient({ connect: async () => new PassThrough(), secret: SECRET });
    expect(await client.refusal()).toBeUndefined();
  });
});
