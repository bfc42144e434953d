// `agentcage mcp` over stdio as an MCP client meets it: the SDK's own Client spawns the built
// command, lists the tools, hands a writable task with input files named by path to the real
// claude CLI (against the stand-in) and hears its progress to the end, reads the events, the
// artifacts and the patch back, cancels a Run that hangs, and is refused bad arguments in words
// that name the parameter and quote its value. No container of its Runs is left.

import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containersOfRun } from "../../test/support/engine.js";
import { TOOL_FINAL_ANSWER } from "../../test/stand-in/scenarios.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const root = mkdtempSync(join(tmpdir(), "agentcage-mcp-stdio-"));
const client = new Client({ name: "agentcage-test", version: "1" });
let stderr = "";

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO, "dist/cli/main.js"), "mcp", "--stand-in", "--runtime-dir", join(root, "rt")],
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client.close();
  rmSync(root, { recursive: true, force: true });
}, 60_000);

type Structured = Record<string, unknown>;

async function call(name: string, args: Record<string, unknown>, onprogress?: (progress: Progress) => void): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(onprogress === undefined ? {} : { onprogress }),
  })) as CallToolResult;
}

function structured(result: CallToolResult): Structured {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  return result.structuredContent as Structured;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 30 s`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("agentcage mcp, over stdio", () => {
  it("lists its six tools, each with a JSON Schema of its arguments", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["run_agent", "run_status", "run_events", "run_cancel", "run_artifacts", "read_artifact"]);
    const runAgent = tools[0];
    expect(runAgent?.inputSchema.required).toEqual(["cli", "prompt"]);
    expect(Object.keys(runAgent?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["cli", "prompt", "inputs", "budget", "writable", "wait"]));
    // On stdio, input files are named by a directory of this machine; an archive is HTTP's way.
    expect(Object.keys(runAgent?.inputSchema.properties ?? {})).not.toContain("inputsArchive");
  });

  it("runs a writable task on input files named by path to its end, telling progress, and serves its events, artifacts and patch", async () => {
    const inputs = join(root, "project");
    mkdirSync(inputs);
    writeFileSync(join(inputs, "README.md"), "before\n");
    const progress: Progress[] = [];
    const result = await call(
      "run_agent",
      { cli: "claude", prompt: "[stand-in:tool_write_bash] [stand-in-write:README.md] edit the README", inputs, writable: true },
      (told) => progress.push(told),
    );
    const run = structured(result);
    expect(run).toMatchObject({ state: "completed", cli: "claude", outcome: { ok: true, reason: "completed", result: { text: TOOL_FINAL_ANSWER } } });
    const id = run["id"] as string;
    // One notification per event, in order, from queued to the end.
    expect(progress.map((told) => told.progress)).toEqual(progress.map((_told, index) => index + 1));
    expect(progress[0]?.message).toBe("state: queued");
    expect(progress.map((told) => told.message)).toContain("agent: tool_call Write");
    expect(progress.at(-1)?.message).toBe("end: completed (ok)");

    const status = structured(await call("run_status", { id }));
    expect(status).toMatchObject({ id, state: "completed" });
    const firstPage = structured(await call("run_events", { id }));
    const events = firstPage["events"] as Array<{ id: number; type: string }>;
    expect(events[0]).toMatchObject({ id: 1, type: "state" });
    expect(events.at(-1)?.type).toBe("end");
    expect(firstPage).toMatchObject({ ended: true, more: false, next: events.at(-1)?.id });
    const later = structured(await call("run_events", { id, since: events.length - 2 }));
    expect((later["events"] as Array<{ id: number }>).map((event) => event.id)).toEqual([events.length - 1, events.length]);

    const artifacts = structured(await call("run_artifacts", { id }));
    expect(artifacts).toMatchObject({ harvested: true, patch: true, changes: { changed: ["README.md"] } });
    const patch = structured(await call("read_artifact", { id, path: "changes.patch" }));
    expect(patch).toMatchObject({ truncated: false, text: expect.stringContaining("-before") });
    expect(patch["text"]).toContain("+written by the stand-in model");
    expect(containersOfRun(id)).toEqual([]);
  });

  it("answers a Run's id at once with wait: false, and cancels it while it hangs", async () => {
    const run = structured(await call("run_agent", { cli: "claude", prompt: "[stand-in:hang] never answered", wait: false }));
    const id = run["id"] as string;
    expect(["queued", "starting"]).toContain(run["state"]);
    await until(async () => structured(await call("run_status", { id }))["state"] === "running", "the Run running");
    const cancelled = structured(await call("run_cancel", { id }));
    expect(["running", "cancelled"]).toContain(cancelled["state"]);
    await until(async () => structured(await call("run_status", { id }))["state"] === "cancelled", "the Run cancelled");
    expect(structured(await call("run_status", { id }))).toMatchObject({ outcome: { reason: "cancelled" } });
    expect(containersOfRun(id)).toEqual([]);
  });

  it("refuses bad arguments in words that name the parameter and quote its value", async () => {
    // A hard link's bytes may be another file's, outside the directory the caller named.
    const linked = join(root, "linked");
    mkdirSync(linked);
    writeFileSync(join(root, "secret.txt"), "outside the inputs\n");
    linkSync(join(root, "secret.txt"), join(linked, "x"));
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ["run_agent", { cli: "gpt", prompt: "hi" }, 'cli "gpt" is not one of claude, codex'],
      ["run_agent", { cli: "claude", prompt: "hi", temperature: 2 }, 'parameter "temperature" is not one run_agent takes'],
      ["run_agent", { cli: "claude", prompt: "hi", maxTurns: 5000 }, "maxTurns 5000 is out of range"],
      ["run_agent", { cli: "claude", prompt: "hi", inputs: "project" }, 'inputs "project" is not an absolute path'],
      ["run_agent", { cli: "claude", prompt: "hi", inputs: join(root, "missing") }, "is not a directory on this machine"],
      ["run_agent", { cli: "claude", prompt: "hi", writable: true }, "writable: true needs input files"],
      ["run_agent", { cli: "claude", prompt: "hi", inputs: linked }, 'inputs entry "x" is a hard link (link count 2)'],
      ["run_status", { id: "../../etc" }, 'id "../../etc" is not a Run id'],
      ["run_status", { id: "0123456789abcdef" }, "no Run with that id"],
      ["run_events", { id: "0123456789abcdef", since: -1 }, "since -1 is negative"],
      ["read_artifact", { id: "0123456789abcdef" }, "path"],
    ];
    for (const [name, args, words] of refusals) {
      const result = await call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect((result.structuredContent as { message: string }).message).toContain(words);
    }
  });

  it("says what it does on stderr only: stdout is the protocol's", () => {
    expect(stderr).toContain("agentcage mcp: serving MCP on stdio");
    // Sentences for a person, after the Runs above: the service's JSON log lines come with --verbose.
    expect(stderr.split("\n").filter((line) => line.startsWith("{"))).toEqual([]);
  });

  it("runs two at once on one runtime directory, each in a directory of its own, removed when its client leaves", async () => {
    const shared = join(root, "shared");
    const started = await Promise.all(
      [1, 2].map(async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [join(REPO, "dist/cli/main.js"), "mcp", "--stand-in"],
          env: { ...(process.env as Record<string, string>), AGENTCAGE_RUNTIME_DIR: shared },
          stderr: "ignore",
        });
        const other = new Client({ name: "agentcage-test", version: "1" });
        await other.connect(transport);
        return { other, pid: transport.pid as number };
      }),
    );
    const answers = await Promise.all(
      started.map(
        async ({ other }) =>
          (await other.callTool({ name: "run_agent", arguments: { cli: "claude", prompt: "What is the capital of France?" } }, undefined, { timeout: 120_000 }))
            .structuredContent as Structured,
      ),
    );
    for (const answer of answers) expect(answer).toMatchObject({ state: "completed", outcome: { ok: true } });
    expect(readdirSync(join(shared, "mcp"))).toHaveLength(2);
    for (const { other, pid } of started) {
      await other.close();
      await until(async () => !alive(pid), `agentcage mcp ${pid} ending`);
    }
    expect(readdirSync(join(shared, "mcp"))).toEqual([]);
  });
});
