// `agentcage run --remote` against a real `agentcage serve` on loopback, with the real claude CLI
// against the stand-in: the Run's events followed over SSE and resumed with Last-Event-ID after the
// connection is cut (a TCP proxy in between cuts it), an idle service given up on with exit 5,
// Ctrl-C as a cancel, and `agentcage runs` reading the service's records.

import { createServer as createHttpServer, type Server } from "node:http";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, connect, type AddressInfo, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnv, runCommand, startCommand } from "../../test/support/command.js";
import { useTestService } from "../../test/support/service.js";
import { TOOL_FINAL_ANSWER, WRITTEN_FILE_TEXT } from "../../test/stand-in/index.js";
import { EXIT } from "./exit-codes.js";

const service = useTestService("cli-remote", { slots: 2 });
const root = mkdtempSync(join(tmpdir(), "agentcage-cli-remote-"));
const inputs = join(root, "in");
const servers: Array<Server | TcpServer> = [];

beforeAll(() => {
  mkdirSync(inputs);
  writeFileSync(join(inputs, "README.md"), "# a project\n");
}, 180_000);
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(root, { recursive: true, force: true });
});

const env = () => commandEnv({ AGENTCAGE_TOKEN: service.token() });
const port = (server: Server | TcpServer) => (server.address() as AddressInfo).port;

/**
 * A TCP proxy to the service that cuts the first event stream once it has passed the event with id
 * `cutAfter`, and says the last event it passed: the service may write events that came together in
 * one chunk, so the stream can be cut a little after `cutAfter`.
 */
async function cuttingProxy(cutAfter: number): Promise<{ url: string; cuts: () => number; lastPassed: () => number }> {
  const target = new URL(service.running().url);
  let cuts = 0;
  let lastPassed = 0;
  let cutOne = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    let isEvents = false;
    let passed = "";
    client.on("data", (chunk: Buffer) => {
      if (!isEvents && /^GET \/v1\/runs\/[0-9a-f]+\/events/.test(chunk.toString())) isEvents = !cutOne;
      if (isEvents) cutOne = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      client.write(chunk);
      if (!isEvents) return;
      passed += chunk.toString();
      if (passed.includes(`\nid: ${cutAfter}\n`) || passed.startsWith(`id: ${cutAfter}\n`)) {
        cuts += 1;
        lastPassed = Math.max(...[...passed.matchAll(/^id: (\d+)$/gm)].map((found) => Number(found[1])));
        isEvents = false;
        client.destroy();
        upstream.destroy();
      }
    });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port(server)}`, cuts: () => cuts, lastPassed: () => lastPassed };
}

describe("agentcage run --remote", () => {
  it("follows the Run's events, resumes after the connection is cut with each event once, and fetches the Harvest into --out", async () => {
    const proxy = await cuttingProxy(3);
    const out = join(root, "out");
    const done = await runCommand(["run", "claude", "[stand-in:tool_write_bash] write the answer", "--remote", proxy.url, "--in", inputs, "--out", out], env());
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(proxy.cuts()).toBe(1);
    expect(proxy.lastPassed()).toBeGreaterThanOrEqual(3);
    expect(done.stderr).toContain(`reconnecting after event ${proxy.lastPassed()}`);
    expect(done.stdout).toBe(`${TOOL_FINAL_ANSWER}\n`);
    expect(done.stderr.match(/\] tool Write: /g)).toHaveLength(1);
    expect(done.stderr.match(/\] tool Bash: /g)).toHaveLength(1);
    expect(done.stderr).toContain("✔ completed in");
    expect(readFileSync(join(out, "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
    const id = /accepted as Run ([0-9a-f]{16})/.exec(done.stderr)?.[1] as string;
    expect(id).toMatch(/^[0-9a-f]{16}$/);

    // The service's records, read by the command from its runtime directory.
    const listed = await runCommand(["runs", "ls", "--runtime-dir", service.runtimeDir], env());
    expect(listed.code).toBe(EXIT.completed);
    expect(listed.stdout).toMatch(new RegExp(`${id}  completed  claude`));
    const logs = await runCommand(["runs", "logs", id, "--runtime-dir", service.runtimeDir, "--json"], env());
    const events = logs.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; type: string });
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)?.type).toBe("end");
    const shown = JSON.parse((await runCommand(["runs", "show", id, "--runtime-dir", service.runtimeDir], env())).stdout) as {
      state: string;
      request: { prompt: string };
    };
    expect(shown).toMatchObject({ state: "completed", request: { prompt: "[stand-in:tool_write_bash] write the answer" } });
    const unknown = await runCommand(["runs", "show", "0000000000000000", "--runtime-dir", service.runtimeDir], env());
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('no Run "0000000000000000"');

    // The same records through the service's API, as keys, tenants and audit read theirs.
    const remote = ["--remote", service.running().url];
    const listedThere = await runCommand(["runs", "ls", ...remote], env());
    expect(listedThere.code, listedThere.stderr).toBe(EXIT.completed);
    expect(listedThere.stdout.split("\n").find((line) => line.startsWith(id))).toBe(listed.stdout.split("\n").find((line) => line.startsWith(id)));
    const logsThere = await runCommand(["runs", "logs", id, ...remote, "--json"], env());
    expect(logsThere.code, logsThere.stderr).toBe(EXIT.completed);
    const eventsThere = logsThere.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; type: string });
    expect(eventsThere.map((e) => [e.id, e.type])).toEqual(events.map((e) => [e.id, e.type]));
    const shownThere = JSON.parse((await runCommand(["runs", "show", id, ...remote], env())).stdout) as { state: string; request: { prompt: string } };
    expect(shownThere).toMatchObject({ state: "completed", request: { prompt: "[stand-in:tool_write_bash] write the answer" } });
    const unknownThere = await runCommand(["runs", "show", "0000000000000000", ...remote], env());
    expect(unknownThere.code).toBe(EXIT.usage);
    expect(unknownThere.stderr).toContain("HTTP 404");
  }, 120_000);

  it("sends --in without what --exclude names: a link and an out/ left out do not refuse the archive", async () => {
    const checkout = join(root, "checkout");
    mkdirSync(join(checkout, "out"), { recursive: true });
    mkdirSync(join(checkout, "node_modules", ".bin"), { recursive: true });
    writeFileSync(join(checkout, "README.md"), "# a checkout\n");
    writeFileSync(join(checkout, "out", "index.html"), "<p>last build</p>\n");
    symlinkSync("../left-pad/cli.js", join(checkout, "node_modules", ".bin", "left-pad"));
    const args = ["run", "claude", "[stand-in:tool_write_bash] write the answer", "--remote", service.running().url, "--in", checkout];

    const refused = await runCommand(args, env());
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('already has "out", where the agent writes; leave it out with --exclude out, or rename it');
    const linked = await runCommand([...args, "--exclude", "out"], env());
    expect(linked.code).toBe(EXIT.usage);
    expect(linked.stderr).toContain(
      '--in holds "node_modules/.bin/left-pad", which is not a regular file or directory (links are never sent); leave it out with --exclude "node_modules/.bin/left-pad", or remove it',
    );

    const out = join(root, "excluded-out");
    const done = await runCommand([...args, "--exclude", "out", "--exclude", "node_modules", "--out", out], env());
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(readdirSync(out)).toEqual(["answer.txt"]);
  }, 120_000);

  it("refuses an --in that holds a hard link, naming it, before anything is sent", async () => {
    const checkout = join(root, "hard-linked");
    mkdirSync(join(checkout, "src"), { recursive: true });
    writeFileSync(join(checkout, "README.md"), "# a checkout\n");
    writeFileSync(join(root, "secret.txt"), "outside the checkout\n");
    linkSync(join(root, "secret.txt"), join(checkout, "src", "x.ts"));
    const args = ["run", "claude", "[stand-in:tool_write_bash] write the answer", "--remote", service.running().url, "--in", checkout];

    const refused = await runCommand(args, env());
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain(
      '--in holds "src/x.ts", a hard link (link count 2) whose bytes may be a file\'s outside --in; leave it out with --exclude "src/x.ts", or put a copy of the file there',
    );
    expect(refused.stderr).not.toContain("accepted as Run");
  }, 120_000);

  it("cancels the Run on the service on Ctrl-C and exits 130", async () => {
    const started = startCommand(["run", "claude", "[stand-in:hang] never answered", "--remote", service.running().url], env());
    await started.stderrHas("claude started");
    started.child.kill("SIGINT");
    const done = await started.finished;
    expect(done.code, done.stderr).toBe(EXIT.cancelled);
    const runId = /accepted as Run ([0-9a-f]{16})/.exec(done.stderr)?.[1] as string;
    const record = (await (await fetch(`${service.running().url}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${service.token()}` } })).json()) as {
      state: string;
    };
    expect(record.state).toBe("cancelled");
  }, 120_000);

  it("gives up on a service that says nothing for --idle-timeout, with exit 5 and where to look", async () => {
    // A service that accepts the Run and then never sends an event, not even a keep-alive.
    const silent = createHttpServer((request, response) => {
      if (request.method === "POST")
        return void response.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify({ id: "0123456789abcdef", state: "queued" }));
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.flushHeaders();
    });
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const started = performance.now();
    const done = await runCommand(["run", "claude", "hi", "--remote", `http://127.0.0.1:${port(silent)}`, "--idle-timeout", "2"], env());
    expect(done.code).toBe(EXIT.lost);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(done.stderr).toContain("no word from");
    expect(done.stderr).toContain("/v1/runs/0123456789abcdef");
    silent.closeAllConnections();
  }, 60_000);

  it("says the service cannot be reached, with exit 3, and refuses to run without a token", async () => {
    const unreachable = await runCommand(["run", "claude", "hi", "--remote", "http://127.0.0.1:1"], env());
    expect(unreachable.code).toBe(EXIT.unavailable);
    expect(unreachable.stderr).toContain("cannot be reached");
    const tokenless = await runCommand(["run", "claude", "hi", "--remote", service.running().url], commandEnv({ AGENTCAGE_TOKEN: "" }));
    expect(tokenless.code).toBe(EXIT.usage);
    expect(tokenless.stderr).toContain("--remote needs the service's token in AGENTCAGE_TOKEN");
  }, 60_000);
});
