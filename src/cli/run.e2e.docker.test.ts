// `agentcage run` and `agentcage plan` as a person runs them: a subprocess with the real claude and
// codex CLIs in the agent image against the stand-in model. Piped, it prints plain lines and no
// escape code; through a pseudo-terminal (script(1)), the live view; Ctrl-C cancels and exits 130.

import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "shell-quote";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandEnv, MAIN, runCommand, startCommand } from "../../test/support/command.js";
import { docker } from "../../test/support/engine.js";
import { startStandInModel } from "../../test/support/stand-in-container.js";
import { CODEX_WRITTEN_FILE_TEXT, PLAIN_ANSWER, TOOL_FINAL_ANSWER, WRITTEN_FILE_TEXT } from "../../test/stand-in/index.js";
import { EXIT } from "./exit-codes.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-cli-"));
const runtimeDir = join(root, "rt");
const inputs = join(root, "in");
const env = commandEnv({ AGENTCAGE_RUNTIME_DIR: runtimeDir });
const ESC = "\u001b";

beforeAll(() => {
  mkdirSync(inputs);
  writeFileSync(join(inputs, "README.md"), "# a project\n");
}, 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The library's Run directories under the runtime dir: none is left after a Run. */
function runDirectories(): string[] {
  const staging = join(runtimeDir, "staging");
  return existsSync(staging) ? readdirSync(staging).filter((name) => /^[0-9a-f]{16}$/.test(name)) : [];
}

describe("agentcage run --help", () => {
  it("says where the key comes from and what --out receives, and its example runs as written", async () => {
    const help = await runCommand(["run", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("claude takes CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_API_KEY");
    expect(help.stdout).toContain("changes.patch");
    const example = /^ {2}agentcage (run .*)$/m.exec(help.stdout)?.[1];
    expect(example).toBeDefined();
    // Its words, as a shell would split them: the quoted prompt is one.
    const words = (example ?? "").match(/"[^"]*"|\S+/g)?.map((word) => word.replace(/^"|"$/g, "")) ?? [];
    const out = join(root, "help-example");
    const done = await runCommand([...words.map((word) => (word === "./answer" ? out : word))], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(readFileSync(join(out, "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
  }, 120_000);
});

describe("agentcage run, piped", () => {
  it("runs claude with --in and --out: the answer on stdout, one plain line per step and a summary on stderr, the Harvest in --out", async () => {
    const out = join(root, "out-claude");
    const done = await runCommand(["run", "claude", "[stand-in:tool_write_bash] write the answer", "--stand-in", "--in", inputs, "--out", out], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(done.stdout).toBe(`${TOOL_FINAL_ANSWER}\n`);
    expect(readFileSync(join(out, "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
    expect(done.stderr).toMatch(/\] claude started/);
    expect(done.stderr).toMatch(/\] tool Write: \/work\/out\/answer\.txt\n.*\] tool Bash: echo from-bash\n/);
    expect(done.stderr).toContain("✔ completed in");
    expect(done.stderr).toMatch(/ · \$\d+\.\d{4}, not real \(the stand-in model's made-up usage\) · from claude's own output\n/);
    expect(done.stderr).toContain("2 tool calls: Write, Bash");
    expect(done.stderr).toContain(`harvested 1 file (${WRITTEN_FILE_TEXT.length} bytes) into ${out}`);
    expect(done.stderr).toMatch(/session [0-9a-f-]{36} \(continue it: --resume [0-9a-f-]{36}\)/);
    expect(done.stderr).not.toContain(ESC);
    expect(runDirectories()).toEqual([]);
  }, 120_000);

  it.each([[], ["--network-policy", "model"]])(
    "runs codex's tool scenario against the stand-in as written, with no --model (%j): it writes out/answer.txt",
    async (...policy: string[]) => {
      const out = join(root, `codex-out${policy.length}`);
      const done = await runCommand(["run", "codex", "[stand-in:tool_write_bash] write the answer", "--stand-in", ...policy, "--out", out], env);
      expect(done.code, done.stderr).toBe(EXIT.completed);
      expect(done.stdout).toBe(`${TOOL_FINAL_ANSWER}\n`);
      expect(readFileSync(join(out, "answer.txt"), "utf8")).toBe(CODEX_WRITTEN_FILE_TEXT);
    },
    120_000,
  );

  it("runs codex with --json: the Outcome as JSON on stdout and nothing else", async () => {
    const done = await runCommand(["run", "codex", "What is the capital of France?", "--stand-in", "--json"], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    const outcome = JSON.parse(done.stdout) as { ok: boolean; reason: string; cli: string; credential: string; result: { text: string } };
    expect(outcome).toMatchObject({ ok: true, reason: "completed", cli: "codex", credential: "api_key", result: { text: PLAIN_ANSWER } });
    expect(done.stdout).not.toContain("sk-stand-in");
  }, 120_000);

  it("with --writable keeps the agent's out/ out of the patch: beside the changes with --out, and said to be dropped without", async () => {
    // The stand-in's agent writes only out/answer.txt: its report, not a change to the inputs.
    const done = await runCommand(["run", "claude", "[stand-in:tool_write_bash] write the answer", "--stand-in", "--in", inputs, "--writable"], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(done.stdout).toBe("");
    expect(done.stderr).toContain("changes: none to the inputs");
    expect(done.stderr).toContain("the agent's out/ held 1 file, not kept: pass --out DIR to keep them in DIR/out/");

    const out = join(root, "writable-out");
    const kept = await runCommand(
      ["run", "claude", "[stand-in:tool_write_bash] write the answer", "--stand-in", "--in", inputs, "--writable", "--out", out],
      env,
    );
    expect(kept.code, kept.stderr).toBe(EXIT.completed);
    expect(readFileSync(join(out, "out", "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
    expect(readFileSync(join(out, "changes.patch"), "utf8")).toBe("");
    expect(JSON.parse(readFileSync(join(out, "changes.json"), "utf8"))).toMatchObject({ added: [], changed: [], deleted: [], outFiles: 1 });
    expect(kept.stderr).toContain(`the agent's out/ (1 file) is in ${out}/out/`);
    // The agent edited a copy: the inputs are as they were.
    expect(readdirSync(inputs)).toEqual(["README.md"]);
  }, 120_000);

  it("with --writable says in the summary that the change holds bidi or control characters, naming the file written out", async () => {
    const hostile = join(root, "hostile");
    mkdirSync(hostile, { recursive: true });
    writeFileSync(join(hostile, "README.md"), "the first line\n");
    writeFileSync(join(hostile, "notes.txt"), "\u001b[2J\u202egnp.exe\n");
    const prompt = "[stand-in:tool_write_bash] [stand-in-bash:cat notes.txt >> README.md] add the notes";
    const done = await runCommand(["run", "claude", prompt, "--stand-in", "--in", hostile, "--writable"], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    // The patch on stdout is what applies, as it is; the summary names the file and holds nothing raw.
    expect(done.stdout).toContain("+\u001b[2J\u202egnp.exe\n");
    expect(done.stderr).toContain('the change holds bidi or control characters (a line of the patch may read differently from what applies) in "README.md"');
    expect(done.stderr).not.toMatch(/[\u202e]|\u001b\[2J/);
  }, 120_000);

  it("refuses an --in that holds a hard link, naming it and the --exclude that leaves it out, before any agent runs", async () => {
    const checkout = join(root, "hard-linked");
    mkdirSync(checkout);
    writeFileSync(join(checkout, "README.md"), "# a checkout\n");
    writeFileSync(join(root, "secret.txt"), "outside the checkout\n");
    linkSync(join(root, "secret.txt"), join(checkout, "x"));

    const refused = await runCommand(["run", "claude", "[stand-in:tool_write_bash] write the answer", "--stand-in", "--in", checkout], env);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain(
      '--in: input "x" is a hard link (link count 2), whose bytes may be a file\'s outside the input directory; leave it out with --exclude x, or put a copy of the file there',
    );
    expect(refused.stderr).not.toContain("claude started");
    expect(runDirectories()).toEqual([]);
  }, 120_000);

  it("leaves out what --exclude names: a checkout with its own out/ and node_modules runs, and neither is in the patch", async () => {
    const checkout = join(root, "checkout");
    mkdirSync(join(checkout, "out"), { recursive: true });
    mkdirSync(join(checkout, "node_modules", "left-pad"), { recursive: true });
    writeFileSync(join(checkout, "README.md"), "# a checkout\n");
    writeFileSync(join(checkout, "out", "index.html"), "<p>last build</p>\n");
    writeFileSync(join(checkout, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n");

    const refused = await runCommand(["run", "claude", "[stand-in:tool_write_bash] write the answer", "--stand-in", "--in", checkout], env);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('already has "out", where the agent writes; leave it out with --exclude out, or rename it');
    expect(runDirectories()).toEqual([]);

    const out = join(root, "excluded-writable");
    const done = await runCommand(
      [
        "run",
        "claude",
        "[stand-in:tool_write_bash] write the answer",
        "--stand-in",
        "--in",
        checkout,
        "--exclude",
        "out",
        "--exclude",
        "node_modules",
        "--exclude",
        "bulid",
        "--writable",
        "--out",
        out,
      ],
      env,
    );
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(done.stderr).toContain('agentcage: --exclude "bulid" names nothing in --in, so it leaves nothing out; check its spelling');
    // The checkout's own out/ and node_modules are neither staged nor changes; the agent's out/ comes back beside.
    expect(readFileSync(join(out, "changes.patch"), "utf8")).toBe("");
    expect(readdirSync(join(out, "out"))).toEqual(["answer.txt"]);
    expect(readdirSync(checkout).sort()).toEqual(["README.md", "node_modules", "out"]);
    expect(readdirSync(join(checkout, "out"))).toEqual(["index.html"]);
  }, 120_000);

  it("goes on to the end and leaves nothing behind when its reader goes away (| head -1)", async () => {
    const started = startCommand(
      ["run", "claude", "[stand-in:tool_write_bash] write the answer", "--stand-in", "--in", inputs, "--out", join(root, "read-by-head")],
      env,
    );
    await started.stderrHas("starting the stand-in model");
    // What `head -1` does once it has its line: the reading end closes, and every later write fails with EPIPE.
    started.child.stdout?.destroy();
    started.child.stderr?.destroy();

    const done = await started.finished;

    expect(done.code).toBe(EXIT.completed);
    expect(readFileSync(join(root, "read-by-head", "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.pid=${started.child.pid}`).trim()).toBe("");
    expect(runDirectories()).toEqual([]);
  }, 120_000);

  it.each([
    [["run", "gemini", "hi"], 'the agent "gemini" is not one of claude, codex'],
    [["run", "claude", "hi", "--max-turns", "many"], '--max-turns "many" is not a whole number from 0 to 1000'],
    [["run", "claude", "hi", "--out", inputs], `--out "${inputs}" already holds files; pass an empty or new directory, or --replace to replace it whole`],
    [["run", "claude", "hi", "--writable"], "--writable needs --in DIR"],
    [["run", "claude", "hi", "--max-cost", "free"], '--max-cost "free" is not an amount of dollars above 0'],
    [["run", "claude"], "missing required argument 'prompt'"],
    [["run", "claude", "hi", "--remote", "ftp://x"], '--remote "ftp://x" is not http or https'],
    [["run", "claude", "hi", "--remote", "http://127.0.0.1:1", "--stand-in"], "--stand-in is the service's to choose with --remote"],
    [["run", "claude", "hi", "--runtime-dir", "relative-rt"], '--runtime-dir "relative-rt" is not an absolute path; write it from the root'],
    [["run", "claude", "hi", "--network-policy", "wide"], "argument 'wide' is invalid. Allowed choices are none, model, allowlist, open"],
    [["run", "claude", "hi", "--network-policy", "allowlist"], "--network-policy allowlist needs at least one --allow <host:port>"],
    [["run", "claude", "hi", "--allow", "api.example.com:443"], "--allow api.example.com:443 needs --network-policy allowlist"],
    [["run", "claude", "hi", "--network-policy", "model", "--network", "bridge"], "--network-policy model and --network bridge were both given"],
    [["run", "claude", "hi", "--network-policy", "allowlist", "--allow", "no-port"], '--allow "no-port" is not host:port'],
    [
      ["run", "claude", "hi", "--stand-in", "--network-policy", "open"],
      '--stand-in puts the agent on the stand-in model\'s own network, so --network-policy "open" cannot go with it',
    ],
    [["run", "claude", "hi", "--remote", "http://127.0.0.1:1", "--network-policy", "model"], "--network-policy is the service's to choose with --remote"],
  ])("refuses %j with exit 2, saying what to write, and starts nothing", async (args, said) => {
    const done = await runCommand(args, env);
    expect(done.code).toBe(EXIT.usage);
    expect(done.stderr).toContain(said);
    expect(done.stdout).toBe("");
    expect(runDirectories()).toEqual([]);
  });

  it("runs claude under --network-policy model: the proxy starts for the Run, meters it, and goes with it", async () => {
    const started = startCommand(["run", "claude", "What is the capital of France?", "--stand-in", "--network-policy", "model", "--json"], env);
    const done = await started.finished;
    expect(done.code, done.stderr).toBe(EXIT.completed);
    const outcome = JSON.parse(done.stdout) as { network?: { policy: string; meter?: { turns: number } }; result?: { text?: string } };
    expect(outcome.result?.text).toBe(PLAIN_ANSWER);
    expect(outcome.network).toMatchObject({ policy: "model", meter: { turns: 1 } });
    // This command's proxy (by its process's label): other proxies may be running on a shared engine.
    const pid = `label=agentcage.pid=${started.child.pid}`;
    expect(docker("ps", "--all", "--quiet", "--filter", "label=agentcage.owner=agentcage-egress", "--filter", pid)).toBe("");
  }, 120_000);

  it("prices the same stand-in answer the same whether claude prices it or the proxy's meter does", async () => {
    type Priced = {
      standIn?: boolean;
      result?: { costUsd?: number; model?: string };
      network?: { meter?: { costUsd: number; costFrom?: string; models?: string[] } };
    };
    const ask = async (...words: string[]): Promise<Priced> => {
      const done = await runCommand(["run", "claude", "What is the capital of France?", "--stand-in", "--json", ...words], env);
      expect(done.code, done.stderr).toBe(EXIT.completed);
      return JSON.parse(done.stdout) as Priced;
    };
    const here = await ask();
    const metered = await ask("--network-policy", "model");
    // The pinned claude's own default model, which claude prices itself at its list price.
    expect(metered.network?.meter?.models).toEqual([here.result?.model]);
    expect(metered.network?.meter?.costFrom).toBe("price_table");
    expect(metered.network?.meter?.costUsd).toBeCloseTo(here.result?.costUsd ?? Number.NaN, 9);
    // Both made up: the stand-in's usage, which nobody bills.
    expect([here.standIn, metered.standIn]).toEqual([true, true]);
  }, 120_000);

  it("sums up a codex Run under --network-policy model with one token count and one cost, the proxy's, said to be estimated", async () => {
    // A model the price table does not list: the proxy prices it at the dearest entry, and says so.
    const done = await runCommand(
      ["run", "codex", "What is the capital of France?", "--stand-in", "--network-policy", "model", "--model", "gpt-unlisted-1"],
      env,
    );
    expect(done.code, done.stderr).toBe(EXIT.completed);
    const spent = done.stderr.split("\n").filter((line) => /\$\d|tokens/.test(line));
    expect(spent, done.stderr).toHaveLength(1);
    expect(spent[0]).toMatch(
      /^ {2}1 turn · \d+ in \/ \d+ out tokens .*· \$\d+\.\d{4} estimated \(its model is not in the price table: priced at the dearest entry\), not real \(the stand-in model's made-up usage\) · from the egress proxy's meter$/,
    );
    expect(done.stderr).toContain("  network model: 1 model call through the egress proxy\n");
  }, 120_000);

  it("stops a runaway agent at --max-tokens with exit 6, keeping what it spent", async () => {
    const done = await runCommand(["run", "claude", "[stand-in:max_turns] keep going", "--stand-in", "--max-tokens", "50"], env);
    expect(done.code, done.stderr).toBe(EXIT.budget);
    expect(done.stderr).toContain("✖ budget_exceeded");
    expect(done.stderr).toContain("the Run passed its budget's maxTokens");
    expect(done.stderr).toMatch(/budget tokens [0-9,]+\/50 \(passed maxTokens\)/);
    expect(runDirectories()).toEqual([]);
  }, 120_000);

  it("stops codex at --max-turns with exit 6, counting its turns from its stream", async () => {
    const done = await runCommand(["run", "codex", "[stand-in:max_turns] keep going", "--stand-in", "--max-turns", "3"], env);
    expect(done.code, done.stderr).toBe(EXIT.budget);
    expect(done.stderr).toContain("✖ budget_exceeded");
    expect(done.stderr).toMatch(/budget turns 4\/3 \(passed maxTurns\)/);
    expect(runDirectories()).toEqual([]);
  }, 120_000);

  it("refuses codex's --max-tokens and --max-cost where no egress proxy meters them, starting nothing", async () => {
    const done = await runCommand(["run", "codex", "[stand-in:max_turns] keep going", "--stand-in", "--max-tokens", "50", "--max-cost", "0.5"], env);
    expect(done.code, done.stderr).toBe(EXIT.usage);
    expect(done.stderr).toContain(
      `--max-tokens 50 and --max-cost 0.5 cannot be held for codex under --stand-in's own network: codex prints its tokens only when it ends, so only the egress proxy of --network-policy model or allowlist meters them while it runs; use one of those, or leave the caps out`,
    );
    expect(done.stderr).not.toContain("starting");
    expect(runDirectories()).toEqual([]);
  }, 60_000);

  it("cancels on Ctrl-C: the container goes, and it exits 130", async () => {
    const started = startCommand(["run", "claude", "[stand-in:hang] never answered", "--stand-in"], env);
    await started.stderrHas("claude started");
    started.child.kill("SIGINT");
    const done = await started.finished;
    expect(done.code, done.stderr).toBe(EXIT.cancelled);
    expect(done.stderr).toContain("✖ cancelled");
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.pid=${started.child.pid}`)).toBe("");
    expect(runDirectories()).toEqual([]);
  }, 180_000);
});

describe("agentcage run, on a terminal", () => {
  it("redraws a live view with a spinner and colour, prints the tool calls above it, and ends with the summary", async () => {
    // script(1) gives the command a pseudo-terminal; -e returns its exit status.
    // A pseudo-terminal starts with no size: give it one, as a terminal window has.
    const line = ["stty cols 100 rows 30;", process.execPath, MAIN, "run", "claude", "'[stand-in:tool_write_bash] write the answer'", "--stand-in"].join(" ");
    const started = startCommand(["-qfec", line, "/dev/null"], { ...env, TERM: "xterm-256color", COLUMNS: "100" }, "script", []);
    const done = await started.finished;
    expect(done.code, done.stdout).toBe(EXIT.completed);
    // On a terminal stdout and stderr are one screen.
    const screen = done.stdout;
    expect(screen).toContain(`${ESC}[`);
    expect(screen).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    const text = screen.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    expect(text).toContain("› Write: /work/out/answer.txt");
    expect(text).toContain("› Bash: echo from-bash");
    expect(text).toMatch(/✔ completed in [0-9.]+ s · claude/);
    expect(text).toContain(TOOL_FINAL_ANSWER);
  }, 120_000);
});

describe("agentcage plan", () => {
  it("prints the docker run command, quoted to paste, with the credential by name and never its value", async () => {
    const secret = "sk-ant-plan-test-value-0123456789";
    const done = await runCommand(["plan", "claude", "it's a prompt", "--max-turns", "3"], { ...env, ANTHROPIC_API_KEY: secret });
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(done.stdout + done.stderr).not.toContain(secret);
    // The last line; the one before makes the directories it binds.
    const words = parse(done.stdout.trim().split("\n").at(-1) ?? "") as string[];
    expect(words.slice(0, 2)).toEqual(["docker", "run"]);
    expect(words).toEqual(expect.arrayContaining(["--cap-drop", "ALL", "--read-only", "--network", "none", "--env", "ANTHROPIC_API_KEY", "--max-turns", "3"]));
    // The words run: docker accepts them (checked without starting anything: `docker run --help` parses nothing).
    expect(execFileSync("docker", ["version", "--format", "{{.Server.APIVersion}}"]).toString().trim()).not.toBe("");
  });

  it("prints words that run as pasted: the bind sources made first, quoted only where a shell needs it", async () => {
    const standIn = await startStandInModel("plain");
    try {
      const planDir = join(root, "plan-rt");
      const prompt = "[stand-in:tool_write_bash] write the answer";
      const done = await runCommand(["plan", "claude", prompt, "--stand-in", "--runtime-dir", planDir], env);
      expect(done.code, done.stderr).toBe(EXIT.completed);
      const [made, command, ...rest] = done.stdout.trim().split("\n");
      expect(rest).toEqual([]);
      const runDir = new RegExp(`^mkdir -p -m 755 (${planDir}/staging/[0-9a-f]{16})/work && mkdir -p -m 777 \\1/work/out$`).exec(made ?? "")?.[1];
      expect(runDir, made).toBeDefined();
      // Readable: no backslash before a character no shell treats specially.
      expect(command).toContain(" --tmpfs /tmp:rw,nosuid,nodev,size=");
      expect(command).toContain(` --mount type=bind,source=${runDir}/work/out,target=/work/out `);
      expect(command).not.toMatch(/\\[:,=]/);
      // Pasted into a shell, with the stand-in started as the plan says and the prompt on stdin.
      const pasted = `${made}\n${(command ?? "").replace("container:agentcage-stand-in", standIn.network)}`;
      const ran = await startCommand(["-c", pasted], commandEnv({ ANTHROPIC_API_KEY: "stand-in-key" }), "sh", [], prompt).finished;
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toContain(TOOL_FINAL_ANSWER);
      expect(readFileSync(join(runDir ?? "", "work", "out", "answer.txt"), "utf8")).toBe(WRITTEN_FILE_TEXT);
    } finally {
      await standIn.stop();
    }
  }, 180_000);
});

describe("agentcage doctor", () => {
  it("checks this machine as a subprocess: the engine, the image's CLIs, the Staging Directory on the engine; --json for scripts", async () => {
    const done = await runCommand(["doctor", "--json", "--runtime-dir", runtimeDir], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    const checks = JSON.parse(done.stdout) as Array<{ check: string; status: string }>;
    expect(Object.fromEntries(checks.map((c) => [c.check, c.status]))).toMatchObject({
      engine: "ok",
      image: "ok",
      "claude cli": "ok",
      "codex cli": "ok",
      "staging on engine": "ok",
    });
    const wrong = await runCommand(["doctor", "--runtime-dir", "relative/dir"], env);
    expect(wrong.code).toBe(EXIT.usage);
    expect(wrong.stderr).toContain('--runtime-dir "relative/dir" is not an absolute path');
  }, 60_000);
});

describe("agentcage sweep and image build", () => {
  it("sweeps what a killed agentcage left: its agent's container, its stand-in model and its Run directory", async () => {
    // A Run whose process is killed mid-Run leaves its container and Run directory behind.
    const started = startCommand(["run", "claude", "[stand-in:hang] never answered", "--stand-in"], env);
    await started.stderrHas("claude started");
    started.child.kill("SIGKILL");
    await started.finished;
    const left = docker("ps", "--all", "--quiet", "--filter", `label=agentcage.pid=${started.child.pid}`)
      .split("\n")
      .filter((id) => id !== "");
    expect(left.length).toBeGreaterThan(0);
    const swept = await runCommand(["sweep"], env);
    expect(swept.code, swept.stderr).toBe(EXIT.completed);
    expect(swept.stdout).toMatch(/^removed [1-9]\d* containers? and \d+ Run director(y|ies)/);
    // Sentences for a person only: the library's JSON log lines come with --verbose.
    expect(swept.stderr).toBe("");
    // Its agent's container, and the stand-in model it started (an owner of its own), both.
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.pid=${started.child.pid}`)).toBe("");
    expect(runDirectories()).toEqual([]);

    const again = startCommand(["run", "claude", "[stand-in:hang] never answered", "--stand-in"], env);
    await again.stderrHas("claude started");
    again.child.kill("SIGKILL");
    await again.finished;
    const verbose = await runCommand(["sweep", "--verbose"], env);
    expect(verbose.code, verbose.stderr).toBe(EXIT.completed);
    expect(verbose.stderr).toMatch(/^\{"level":\d+,/m);
  }, 180_000);

  it("says what image build would build from the installed package, contacting no engine with --dry-run", async () => {
    const done = await runCommand(["image", "build", "agent", "--dry-run"], env);
    expect(done.code, done.stderr).toBe(EXIT.completed);
    expect(done.stdout).toMatch(/^agentcage-agent:latest inputs [0-9a-f]{64} from .*images\/agent: /);
    const wrong = await runCommand(["image", "build", "nope"], env);
    expect(wrong.code).toBe(EXIT.usage);
    expect(wrong.stderr).toContain('"nope" is not an image name');
  }, 60_000);
});
