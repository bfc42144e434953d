// A staged Run against the real engine: the agent reads its inputs, cannot change them, writes
// only out/, and the caller gets exactly what it wrote; the Run record survives when kept.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime, type AgentContainer, type ReaderVerdict } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun } from "../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-staging-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string) => join(scratch, `${name}-${++counter}`);

/** Every file below `root`, relative, with its content. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else out[rel] = readFileSync(join(dir, entry.name), "utf8");
    }
  };
  walk(root, "");
  return out;
}

function stagedRuntime(script: string, container: Partial<AgentContainer> = {}, runtimeDir = fresh("runtime")) {
  const runtime = createAgentContainerRuntime<ReaderVerdict & { text: string }>({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir }, ...container },
    run: (prompt) => ({
      args: ["sh", "-c", script],
      stdin: prompt.text,
      outcome: async (stdout) => {
        const { bytes } = await collectStdout(stdout);
        return { ok: true, text: bytes.toString() };
      },
    }),
  });
  return { runtime, runtimeDir };
}

describe("a staged Run", () => {
  const inputs = fresh("inputs");
  mkdirSync(join(inputs, "src"), { recursive: true });
  writeFileSync(join(inputs, "README.md"), "read me\n");
  writeFileSync(join(inputs, "src", "main.ts"), "console.log(1);\n");

  it("reads its inputs, cannot modify them, and hands back exactly what it wrote in out/", async () => {
    const destination = fresh("harvest");
    const script = [
      "cat README.md src/main.ts",
      "echo tampered > README.md 2>/dev/null || echo refused",
      "echo answer > out/answer.txt",
      "mkdir -p out/nested/deeper && echo leaf > out/nested/deeper/leaf.txt",
    ].join("; ");
    const { runtime, runtimeDir } = stagedRuntime(script);
    const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs, files: { "notes/extra.txt": "extra\n" } }, harvestTo: destination });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 2 } });
    expect(outcome.result?.text).toBe("read me\nconsole.log(1);\nrefused\n");
    expect(tree(destination)).toEqual({ "answer.txt": "answer\n", "nested/deeper/leaf.txt": "leaf\n" });
    expect(statSync(join(destination, "answer.txt")).mode & 0o7777).toBe(0o644);
    expect(readFileSync(join(inputs, "README.md"), "utf8")).toBe("read me\n");
    // Not kept: the Run directory is gone, and so is the container.
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("fails with EROFS when writing, renaming or creating anywhere but out/", async () => {
    const attempts = [
      "echo x > README.md",
      "touch new.txt",
      "mv README.md moved.md",
      "mkdir newdir",
      "rm src/main.ts",
      "ln -s README.md link",
      "chmod 777 README.md",
      // The agent owns this directory in the image: only the read-only root stops it.
      "touch /home/agent/new",
    ];
    const script = `${attempts.map((a) => `sh -c '${a}' 2>&1 || true`).join("; ")}; touch out/ok && echo out-writable`;
    const { runtime } = stagedRuntime(script);
    const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs } });
    const lines = outcome.result?.text.trim().split("\n") ?? [];
    expect(lines).toHaveLength(attempts.length + 1);
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/Read-only file system$/);
    expect(lines.at(-1)).toBe("out-writable");
  });

  it("lets the agent edit a copy of everything when work/ is writable, and harvests only what it changed, its own out/ beside", async () => {
    const destination = fresh("harvest");
    const { runtime } = stagedRuntime("echo edited > README.md; rm src/main.ts; echo new > src/new.ts; echo o > out/o.txt", {
      staging: { runtimeDir: fresh("runtime"), writableWork: true },
    });
    const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs }, harvestTo: destination });
    const changes = { added: ["src/new.ts"], changed: ["README.md"], deleted: ["src/main.ts"], undiffed: [], bytes: 11, outFiles: 1 };
    expect(outcome).toMatchObject({ ok: true, harvest: { ok: true, changes } });
    const harvested = tree(destination);
    expect(Object.keys(harvested).sort()).toEqual(["changes.json", "changes.patch", "files/README.md", "files/src/new.ts", "out/o.txt"]);
    expect(harvested["changes.patch"]).not.toContain("out/o.txt");
    expect(harvested["files/README.md"]).toBe("edited\n");
    expect(JSON.parse(harvested["changes.json"] ?? "")).toEqual(changes);
    expect(harvested["changes.patch"]).toContain("-read me\n+edited\n");
    expect(harvested["changes.patch"]).toContain("--- a/src/main.ts\n+++ /dev/null\n");
    expect(tree(inputs)).toEqual({ "README.md": "read me\n", "src/main.ts": "console.log(1);\n" });
  });

  it("refuses inputs that would take the agent's out/, quoting them, with nothing left behind", async () => {
    const { runtime, runtimeDir } = stagedRuntime("true");
    const outcome = await runtime.run({ text: "" }, { inputs: { files: { "out/planted.txt": "x" } } });
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(outcome.error).toContain('input file "out/planted.txt" is inside "out"');
    expect(existsSync(runtimeDir) ? readdirSync(runtimeDir) : []).toEqual([]);
  });
});

describe("the Run record", () => {
  const CANARY = "canary-record-5e1f0c2b9a";

  it("keeps outcome.json, stdout.txt, stderr.txt, prompt.txt and done with the secret masked when keepRuns is on", async () => {
    const runtimeDir = fresh("runtime");
    const { runtime } = stagedRuntime(
      'cat; echo "out:$TOKEN"; echo "err:$TOKEN" >&2',
      { env: { TOKEN: CANARY }, staging: { runtimeDir, keepRuns: true } },
      runtimeDir,
    );
    const outcome = await runtime.run({ text: `prompt with ${CANARY}\n` });
    expect(outcome.runDirectory).toBe(join(runtimeDir, outcome.runId));
    const record = outcome.runDirectory as string;
    expect(readdirSync(record).sort()).toEqual(["done", "outcome.json", "prompt.txt", "run.json", "stderr.txt", "stdout.txt", "work"]);
    expect(readFileSync(join(record, "stdout.txt"), "utf8")).toBe("prompt with [REDACTED]\nout:[REDACTED]\n");
    expect(readFileSync(join(record, "stderr.txt"), "utf8")).toBe("err:[REDACTED]\n");
    expect(readFileSync(join(record, "prompt.txt"), "utf8")).toBe("prompt with [REDACTED]\n");
    const saved = JSON.parse(readFileSync(join(record, "outcome.json"), "utf8")) as { reason: string; runId: string };
    expect(saved).toMatchObject({ reason: "completed", runId: outcome.runId });
    for (const name of ["stdout.txt", "stderr.txt", "prompt.txt", "outcome.json", "run.json", "done"]) {
      expect(readFileSync(join(record, name), "utf8")).not.toContain(CANARY);
    }
  });

  it("says so when a Run is killed mid-way", async () => {
    const controller = new AbortController();
    const runtimeDir = fresh("runtime");
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir, keepRuns: true } },
      run: () => ({
        args: ["sh", "-c", "echo started; sleep 30"],
        stdin: "",
        outcome: async (stdout) => {
          for await (const _chunk of stdout) controller.abort();
          return { ok: false, error: "stopped early" };
        },
      }),
    });
    const outcome = await runtime.run({ text: "" }, { signal: controller.signal });
    const record = join(runtimeDir, outcome.runId);
    const saved = JSON.parse(readFileSync(join(record, "outcome.json"), "utf8")) as { reason: string; exit: { signal: string } };
    expect(saved).toMatchObject({ reason: "cancelled", exit: { signal: "SIGTERM" } });
    expect(readFileSync(join(record, "stdout.txt"), "utf8")).toBe("started\n");
    expect(existsSync(join(record, "done"))).toBe(true);
  });
});

describe("a Run killed under the runtime", () => {
  it("leaves a record that says how it died", async () => {
    const runtimeDir = fresh("runtime");
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir, keepRuns: true } },
      run: () => ({
        args: ["sh", "-c", "echo started; sleep 30"],
        stdin: "",
        outcome: async (stdout) => {
          for await (const _chunk of stdout) {
            // Someone kills the agent's container from outside, as an OOM killer or an operator would.
            const id =
              execFileSync("docker", ["ps", "--quiet", "--filter", `label=agentcage.owner=agentcage`, "--filter", "status=running"], { encoding: "utf8" })
                .trim()
                .split("\n")[0] ?? "";
            execFileSync("docker", ["kill", id]);
          }
          return { ok: false, error: "the agent died" };
        },
      }),
    });
    const outcome = await runtime.run({ text: "" });
    const saved = JSON.parse(readFileSync(join(runtimeDir, outcome.runId, "outcome.json"), "utf8")) as { reason: string; exit: { signal: string } };
    // Not the agent's failure: a signal the Run did not send, while the engine still answers.
    expect(saved).toMatchObject({ reason: "cancelled", exit: { signal: "SIGKILL" } });
    expect((saved as { error?: string }).error).toContain("stopped from outside the Run (SIGKILL this Run did not send");
    expect(readFileSync(join(runtimeDir, outcome.runId, "stdout.txt"), "utf8")).toBe("started\n");
  });
});

describe("the Harvest of a staged Run", () => {
  it("refuses a destination that overlaps the Staging Directory before anything runs", async () => {
    const { runtime, runtimeDir } = stagedRuntime("true");
    const outcome = await runtime.run({ text: "" }, { harvestTo: "/" });
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(outcome.error).toContain(`overlaps the Staging Directory ${JSON.stringify(runtimeDir)}`);
  });

  it("names a destination it cannot write as harvest_refused, never as a success", async () => {
    const { runtime } = stagedRuntime("echo a > out/a.txt");
    const outcome = await runtime.run({ text: "" }, { harvestTo: join(fresh("missing-parent"), "deeper", "dest") });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "io_error" } } });
  });
});

describe("a Run's secret files", () => {
  it("reach the agent read-only, are masked even when given as bytes, and are gone after the Run", async () => {
    const runtimeDir = fresh("runtime");
    const { runtime } = stagedRuntime(
      "cat /tmp/s; cat /tmp/s >&2; (echo x >> /tmp/s) 2>/dev/null || echo read-only",
      { staging: { runtimeDir, keepRuns: true } },
      runtimeDir,
    );
    const outcome = await runtime.run({ text: "" }, { secretFiles: [{ agentPath: "/tmp/s", content: Buffer.from("bytes-secret-value-123456") }] });
    expect(outcome.result?.text).toBe("[REDACTED]read-only\n");
    expect(outcome.stderr).toBe("[REDACTED]");
    const record = join(runtimeDir, outcome.runId);
    expect(readdirSync(record)).not.toContain("secrets");
    expect(readFileSync(join(record, "stdout.txt"), "utf8")).not.toContain("bytes-secret-value-123456");
  });
});

describe("the Staging Directory", () => {
  it("reports a Run directory that vanished before the container was created as unavailable, creating nothing", async () => {
    const runtimeDir = fresh("runtime");
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir } },
      run: () => ({ args: ["true"], stdin: "", outcome: async () => ({ ok: true }) }),
    });
    // The plan function runs after staging and before the container is created.
    const vanishing = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir } },
      run: () => {
        for (const entry of readdirSync(runtimeDir)) {
          // As root, out/ is a tmpfs of its own (the bound on what the agent writes): let go of it first.
          try {
            execFileSync("umount", ["--lazy", join(runtimeDir, entry, "work", "out")], { stdio: "ignore" });
          } catch {
            // Not mounted: not root.
          }
          rmSync(join(runtimeDir, entry), { recursive: true, force: true });
        }
        return { args: ["true"], stdin: "", outcome: async () => ({ ok: true }) };
      },
    });
    expect((await runtime.run({ text: "" })).reason).toBe("completed");
    const outcome = await vanishing.run({ text: "" });
    expect(outcome.reason).toBe("unavailable");
    expect(outcome.error).toContain("bind source path does not exist");
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("sweeps this owner's Run directories that no Run will finish, and keeps others", async () => {
    const runtimeDir = fresh("runtime");
    const crashed = join(runtimeDir, "0123456789abcdef");
    const foreign = join(runtimeDir, "fedcba9876543210");
    mkdirSync(join(crashed, "work", "out"), { recursive: true });
    writeFileSync(join(crashed, "run.json"), JSON.stringify({ runId: "0123456789abcdef", owner: "agentcage", createdAt: new Date().toISOString() }));
    mkdirSync(foreign, { recursive: true });
    writeFileSync(join(foreign, "run.json"), JSON.stringify({ runId: "fedcba9876543210", owner: "someone-else", createdAt: new Date().toISOString() }));
    const { runtime } = stagedRuntime("true", { staging: { runtimeDir, keepRuns: false } }, runtimeDir);
    const outcome = await runtime.run({ text: "" });
    expect(existsSync(crashed)).toBe(false);
    expect(existsSync(foreign)).toBe(true);
    expect(readdirSync(runtimeDir)).toEqual(["fedcba9876543210"]);
    expect(outcome.reason).toBe("completed");
  });
});
