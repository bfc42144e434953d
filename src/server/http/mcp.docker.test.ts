// /mcp on a real `agentcage serve --stand-in` process, over a real socket, as the SDK's own
// StreamableHTTPClientTransport meets it: a bad bearer token refused, a writable claude Run with
// its inputs uploaded as an archive run to its end with progress streamed, its patch read back;
// tenants kept apart (another tenant's Run is an unknown one), a read-only key refused run_agent,
// the same limits as POST /v1/runs, and GET /mcp answered 405 (no sessions are kept).

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import tar from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containersOfRun } from "../../../test/support/engine.js";
import { startServeProcess } from "../../../test/support/serve-process.js";
import { tarOf } from "../../../test/support/tar.js";
import { TOOL_FINAL_ANSWER } from "../../../test/stand-in/scenarios.js";

const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-mcp-http-"));
const TOKEN = "service-mcp-test-token-0123456789abcdef";
let child: ChildProcess | undefined;
let url = "";
const clients: Client[] = [];

/** Starts `agentcage serve` as its own process; resolves with its URL once it listens. */
async function startService(): Promise<string> {
  const started = await startServeProcess({ runtimeDir, token: TOKEN });
  child = started.child;
  return started.url;
}

async function makeKey(tenant: string, scope: string): Promise<string> {
  const response = await fetch(`${url}/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ tenant, scope }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

async function connectAs(token: string): Promise<Client> {
  const client = new Client({ name: "agentcage-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>, onprogress?: (progress: Progress) => void): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(onprogress === undefined ? {} : { onprogress }),
  })) as CallToolResult;
}

function structured(result: CallToolResult): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

function refusal(result: CallToolResult): { error: string; message: string } {
  expect(result.isError).toBe(true);
  return result.structuredContent as { error: string; message: string };
}

beforeAll(async () => {
  url = await startService();
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  child?.kill("SIGTERM");
  if (child !== undefined && child.exitCode === null) await new Promise((resolve) => child?.once("exit", resolve));
  rmSync(runtimeDir, { recursive: true, force: true });
}, 60_000);

describe("/mcp on agentcage serve, over streamable HTTP", () => {
  let acmeRun = "";

  it("refuses a client without a known bearer token, and never echoes the token", async () => {
    const wrong = "ac_0123456789ab_not-a-key-at-all";
    const client = new Client({ name: "agentcage-test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers: { authorization: `Bearer ${wrong}` } } });
    const failed = await client.connect(transport).then(
      () => undefined,
      (error: unknown) => error as Error & { code?: number },
    );
    expect(failed?.code).toBe(401);
    expect(failed?.message).toContain("Authorization: Bearer <key>");
    expect(failed?.message).not.toContain(wrong);
    const anonymous = await fetch(`${url}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
  });

  it("runs a tenant's writable task on an uploaded archive to its end, streaming progress, and serves its patch", async () => {
    const acme = await connectAs(await makeKey("acme", "runs:write"));
    const { tools } = await acme.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["run_agent", "run_status", "run_events", "run_cancel", "run_artifacts", "read_artifact"]);
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toContain("inputsArchive");
    const progress: Progress[] = [];
    const archive = (await tarOf({ "README.md": "before\n" })).toString("base64");
    const run = structured(
      await call(
        acme,
        "run_agent",
        { cli: "claude", prompt: "[stand-in:tool_write_bash] [stand-in-write:README.md] edit the README", inputsArchive: archive, writable: true },
        (told) => progress.push(told),
      ),
    );
    expect(run).toMatchObject({ tenant: "acme", state: "completed", outcome: { ok: true, result: { text: TOOL_FINAL_ANSWER } } });
    acmeRun = run["id"] as string;
    expect(progress[0]?.message).toBe("state: queued");
    expect(progress.at(-1)?.message).toBe("end: completed (ok)");
    expect(progress.length).toBeGreaterThan(5);
    const patch = structured(await call(acme, "read_artifact", { id: acmeRun, path: "changes.patch" }));
    expect(patch["text"]).toContain("-before");
    const events = structured(await call(acme, "run_events", { id: acmeRun, since: 0 }));
    expect(events).toMatchObject({ ended: true });
    expect(containersOfRun(acmeRun)).toEqual([]);
    // Audited as the routes are, the target saying it came over MCP.
    const audit = (await (await fetch(`${url}/v1/audit`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      entries: Array<Record<string, unknown>>;
    };
    expect(audit.entries).toContainEqual(expect.objectContaining({ action: "run.create", tenant: "acme", runId: acmeRun, target: "MCP", result: 202 }));
    expect(audit.entries).toContainEqual(expect.objectContaining({ action: "run.artifacts", tenant: "acme", runId: acmeRun, target: "MCP", result: 200 }));
  });

  it("keeps tenants apart: another tenant's Run is an unknown one, the Operator sees it, a read-only key cannot run", async () => {
    const beta = await connectAs(await makeKey("beta", "runs:write"));
    for (const [name, args] of [
      ["run_status", { id: acmeRun }],
      ["run_events", { id: acmeRun }],
      ["run_cancel", { id: acmeRun }],
      ["run_artifacts", { id: acmeRun }],
      ["read_artifact", { id: acmeRun, path: "changes.patch" }],
    ] as const) {
      expect(refusal(await call(beta, name, args)), name).toEqual({ error: "not_found", message: expect.stringContaining("no Run with that id") });
    }
    const operator = await connectAs(TOKEN);
    expect(structured(await call(operator, "run_status", { id: acmeRun }))).toMatchObject({ tenant: "acme", state: "completed" });
    const reader = await connectAs(await makeKey("acme", "runs:read"));
    expect(structured(await call(reader, "run_status", { id: acmeRun }))).toMatchObject({ state: "completed" });
    expect(refusal(await call(reader, "run_agent", { cli: "claude", prompt: "hi" }))).toMatchObject({
      error: "forbidden",
      message: expect.stringContaining("needs runs:write"),
    });
    expect(refusal(await call(reader, "run_cancel", { id: acmeRun }))).toMatchObject({ error: "forbidden" });
  });

  it("holds run_agent to the limits of POST /v1/runs, and answers GET /mcp 405", async () => {
    const operator = await connectAs(TOKEN);
    expect(refusal(await call(operator, "run_agent", { cli: "claude", prompt: "x".repeat(600 * 1024) })).message).toContain("over MAX_PROMPT_CHARACTERS");
    expect(refusal(await call(operator, "run_agent", { cli: "claude", prompt: "hi", inputsArchive: "not base64!" })).message).toContain(
      'inputsArchive "not base64!" is not base64',
    );
    const linked = await (async () => {
      const pack = tar.pack();
      const chunks: Buffer[] = [];
      const done = (async () => {
        for await (const chunk of pack) chunks.push(chunk as Buffer);
      })();
      pack.entry({ name: "escape", type: "symlink", linkname: "/etc/passwd" });
      pack.finalize();
      await done;
      return Buffer.concat(chunks);
    })();
    expect(refusal(await call(operator, "run_agent", { cli: "claude", prompt: "hi", inputsArchive: linked.toString("base64") }))).toMatchObject({
      error: "invalid_inputs",
      message: expect.stringContaining("escape"),
    });
    const get = await fetch(`${url}/mcp`, { headers: { authorization: `Bearer ${TOKEN}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});
