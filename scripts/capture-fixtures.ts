// Regenerates test/fixtures/ by running the REAL claude and codex CLIs on this host, as a non-root
// uid, against the stand-in model (test/stand-in/) on a free loopback port: one capture per CLI
// and scenario, stdout kept byte for byte except the capture's temp root, which is rewritten to
// CAPTURE_ROOT_PLACEHOLDER so fixtures name no path of the capturing machine.
// Invariants: every capture is bounded in time (SIGTERM, then SIGKILL); the CLI sees only the
// allow-listed environment built here, with fake keys; nothing leaves loopback.
//
//   npm run build:tools && node dist-tools/scripts/capture-fixtures.js [--cli claude|codex] [--scenario <name>]
//
// The binaries come from CLAUDE_BIN / CODEX_BIN, else from scripts/fetch-agent-clis.sh.
// AGENTCAGE_CAPTURE_UID (default 10002) is the uid and gid the CLIs run as; must be run as root.
import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SCENARIOS, isScenario, startStandInModel, type Scenario } from "../test/stand-in/index.js";

/** A capture still running after this long is sent SIGTERM (a hung model must not hang us). */
const CAPTURE_TIMEOUT_MS = 60_000;
/** After SIGTERM, the process group gets this long before SIGKILL. */
const KILL_GRACE_MS = 5_000;
/** codex has no turn limit: its max_turns capture is stopped after this many tool calls. */
const CODEX_LOOP_CALLS = 8;
const CLAUDE_MAX_TURNS = 10;
const CLAUDE_MAX_TURNS_FOR_LOOP = 3;
/** claude's --max-budget-usd in the max_turns.max_budget capture: passed on its first or second call. */
const CLAUDE_LOOP_BUDGET_USD = 0.01;
const CLAUDE_MODEL = "claude-sonnet-4-5-20250929";
const CODEX_MODEL = "gpt-5.5";
/** The capture's temp root is rewritten to this in fixtures (and its "-tmp-..." slug likewise). */
const CAPTURE_ROOT_PLACEHOLDER = "/tmp/agentcage-capture";
const FAKE_ANTHROPIC_KEY = "sk-ant-api03-fixture-capture-not-a-real-key";
const FAKE_OPENAI_KEY = "sk-proj-fixture-capture-not-a-real-key";

type Cli = "claude" | "codex";

/** A fixture: a scenario, optionally with different retry settings (a ".retried" variant). */
type Capture = {
  readonly cli: Cli;
  readonly scenario: Scenario;
  readonly name: string;
  /** Retries the CLI may make; 0 for every main fixture, so error scenarios end at once. */
  readonly retries: number;
  /** Default CLAUDE_MODEL / CODEX_MODEL; another id shows how the CLI treats a model it does not know. */
  readonly model?: string;
  /** claude's own --max-budget-usd; default none. A loop under a tiny one shows how claude ends at it. */
  readonly maxBudgetUsd?: number;
};

type ExitRecord = {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** "exit": the CLI ended by itself; "timeout": CAPTURE_TIMEOUT_MS passed; "loop_limit": codex max_turns stopped. */
  readonly stoppedBy: "exit" | "timeout" | "loop_limit";
  readonly durationMs: number;
  /** Model API calls the stand-in answered (or held, in hang). */
  readonly modelRequests: number;
  readonly retries: number;
};

const PROMPTS: Readonly<Record<Scenario, string>> = {
  plain: "What is the capital of France? Answer in one sentence.",
  non_ascii: "Answer with one sentence using é, some Japanese, an emoji and a Unicode line separator.",
  tool_write_bash: "Create out/answer.txt with a short note, then run `echo from-bash` and tell me what it printed.",
  max_turns: "Keep running `echo again` until you are stopped.",
  status_401: "Say hello.",
  status_429: "Say hello.",
  status_529: "Say hello.",
  status_500: "Say hello.",
  quota: "Say hello.",
  hang: "Say hello.",
};

function say(message: string): void {
  process.stderr.write(`capture-fixtures: ${message}\n`);
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "images", "agent", "clis.env"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the agentcage checkout (images/agent/clis.env) above this script");
    dir = up;
  }
}

function readClisEnv(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(root, "images", "agent", "clis.env"), "utf8").split("\n")) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) out[match[1]] = match[2];
  }
  return out;
}

function binaries(root: string): { claude: string; codex: string } {
  const fromEnv = { claude: process.env["CLAUDE_BIN"], codex: process.env["CODEX_BIN"] };
  if (fromEnv.claude !== undefined && fromEnv.codex !== undefined) return { claude: fromEnv.claude, codex: fromEnv.codex };
  say("running scripts/fetch-agent-clis.sh");
  const lines = execFileSync("bash", [join(root, "scripts", "fetch-agent-clis.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    .trim()
    .split("\n");
  const [claude, codex] = lines.slice(-2);
  if (claude === undefined || codex === undefined) throw new Error("scripts/fetch-agent-clis.sh did not print two binary paths");
  return { claude: fromEnv.claude ?? claude, codex: fromEnv.codex ?? codex };
}

function slug(path: string): string {
  return path.replace(/[^A-Za-z0-9]/g, "-");
}

function sanitize(bytes: Buffer, base: string): Buffer {
  let text = bytes.toString("latin1");
  const pairs: [string, string][] = [
    [base, CAPTURE_ROOT_PLACEHOLDER],
    [slug(base), slug(CAPTURE_ROOT_PLACEHOLDER)],
  ];
  // The temp root is ASCII, so a latin1 round trip rewrites it without touching any other byte.
  for (const [from, to] of pairs) text = text.split(from).join(to);
  return Buffer.from(text, "latin1");
}

function argvFor(capture: Capture, bin: string, modelUrl: string): string[] {
  if (capture.cli === "claude") {
    const turns = capture.scenario === "max_turns" && capture.maxBudgetUsd === undefined ? CLAUDE_MAX_TURNS_FOR_LOOP : CLAUDE_MAX_TURNS;
    return [
      bin,
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--max-turns",
      String(turns),
      "--dangerously-skip-permissions",
      "--model",
      capture.model ?? CLAUDE_MODEL,
      ...(capture.maxBudgetUsd === undefined ? [] : ["--max-budget-usd", String(capture.maxBudgetUsd)]),
    ];
  }
  const provider =
    `model_providers.stub={name="stub",base_url="${modelUrl}/v1",env_key="OPENAI_API_KEY",wire_api="responses",` +
    `request_max_retries=${capture.retries},stream_max_retries=${capture.retries}}`;
  return [
    bin,
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--sandbox",
    "danger-full-access",
    "--ephemeral",
    "--ignore-user-config",
    "--model",
    capture.model ?? CODEX_MODEL,
    "-c",
    'model_provider="stub"',
    "-c",
    provider,
    "-",
  ];
}

function envFor(capture: Capture, home: string, tmp: string, modelUrl: string): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, TMPDIR: tmp, LANG: "C.UTF-8", TZ: "UTC", DISABLE_AUTOUPDATER: "1" };
  if (capture.cli === "claude") {
    return {
      ...env,
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
      CLAUDE_CODE_MAX_RETRIES: String(capture.retries),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
  }
  return { ...env, CODEX_HOME: join(home, ".codex"), OPENAI_API_KEY: FAKE_OPENAI_KEY };
}

async function runCapture(capture: Capture, bin: string, uid: number): Promise<{ stdout: Buffer; stderr: Buffer; exit: ExitRecord; outFile?: string }> {
  const base = mkdtempSync(join(tmpdir(), "agentcage-capture-"));
  const home = join(base, "home");
  const tmp = join(base, "tmp");
  const work = join(base, "work");
  for (const dir of [home, tmp, work, join(work, "out"), join(home, ".claude"), join(home, ".codex")]) mkdirSync(dir, { recursive: true });
  for (const dir of [base, home, tmp, work, join(work, "out"), join(home, ".claude"), join(home, ".codex")]) chownSync(dir, uid, uid);
  const model = await startStandInModel({ scenario: capture.scenario });
  const started = Date.now();
  try {
    const child = spawn("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ...argvFor(capture, bin, model.url)], {
      cwd: work,
      env: envFor(capture, home, tmp, model.url),
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stoppedBy: ExitRecord["stoppedBy"] = "exit";
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: ExitRecord["stoppedBy"]): void => {
      const pid = child.pid;
      if (stoppedBy !== "exit" || pid === undefined) return;
      stoppedBy = why;
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        // already gone
      }
      killTimer = setTimeout(() => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, KILL_GRACE_MS);
    };
    let loopCalls = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      if (capture.cli === "codex" && capture.scenario === "max_turns") {
        loopCalls += chunk.toString("latin1").split('"type":"item.completed","item":{"id":"item_').length - 1;
        if (loopCalls >= CODEX_LOOP_CALLS) stop("loop_limit");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on("error", () => undefined);
    child.stdin.end(`${PROMPTS[capture.scenario]}\n`);
    const timeout = setTimeout(() => stop("timeout"), CAPTURE_TIMEOUT_MS);
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done, fail) => {
      child.once("error", fail);
      child.once("close", (code, sig) => done([code, sig]));
    });
    clearTimeout(timeout);
    if (killTimer !== undefined) clearTimeout(killTimer);
    const outPath = join(work, "out", "answer.txt");
    const modelRequests = model.requests.filter((r) => r.api !== "other").length;
    const result = {
      stdout: sanitize(Buffer.concat(stdout), base),
      stderr: sanitize(Buffer.concat(stderr), base),
      exit: { exitCode, signal, stoppedBy, durationMs: Date.now() - started, modelRequests, retries: capture.retries },
    };
    return existsSync(outPath) ? { ...result, outFile: readFileSync(outPath, "utf8") } : result;
  } finally {
    await model.close();
    rmSync(base, { recursive: true, force: true });
  }
}

function parseArgs(argv: readonly string[]): { cli?: Cli; scenario?: Scenario; name?: string } {
  const out: { cli?: Cli; scenario?: Scenario; name?: string } = {};
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--cli" && (value === "claude" || value === "codex")) out.cli = value;
    else if (flag === "--scenario" && value !== undefined && isScenario(value)) out.scenario = value;
    else if (flag === "--name" && value !== undefined) out.name = value;
    else
      throw new Error(
        `argument ${JSON.stringify(`${flag ?? ""} ${value ?? ""}`.trim())} is not understood; use --cli claude|codex, --scenario <${SCENARIOS.join("|")}> and --name <fixture, e.g. max_turns.max_budget>`,
      );
  }
  return out;
}

function readJson(path: string): Record<string, unknown> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
}

/** A stream cut mid-record: the plain capture up to the middle of its last line, no final LF. */
function cutMidRecord(stdout: Buffer): Buffer {
  const body = stdout[stdout.length - 1] === 0x0a ? stdout.subarray(0, stdout.length - 1) : stdout;
  const lastLineStart = body.lastIndexOf(0x0a) + 1;
  return Buffer.from(body.subarray(0, lastLineStart + Math.floor((body.length - lastLineStart) / 2)));
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error("capture-fixtures must run as root: it runs each CLI under setpriv as a non-root uid");
  const uid = Number(process.env["AGENTCAGE_CAPTURE_UID"] ?? "10002");
  if (!Number.isInteger(uid) || uid <= 0)
    throw new Error(`AGENTCAGE_CAPTURE_UID ${JSON.stringify(process.env["AGENTCAGE_CAPTURE_UID"])} is not a non-root uid; unset it or give a number above 0`);
  const root = repoRoot();
  const versions = readClisEnv(root);
  const bins = binaries(root);
  const only = parseArgs(process.argv.slice(2));

  const captures: Capture[] = [];
  for (const cli of ["claude", "codex"] as const) {
    for (const scenario of SCENARIOS) captures.push({ cli, scenario, name: scenario, retries: 0 });
  }
  captures.push({ cli: "claude", scenario: "status_529", name: "status_529.retried", retries: 2 });
  captures.push({ cli: "codex", scenario: "status_500", name: "status_500.retried", retries: 1 });
  captures.push({ cli: "codex", scenario: "plain", name: "plain.unknown_model", retries: 0, model: "gpt-stand-in-unknown" });
  captures.push({ cli: "claude", scenario: "max_turns", name: "max_turns.max_budget", retries: 0, maxBudgetUsd: CLAUDE_LOOP_BUDGET_USD });

  const fixtures = join(root, "test", "fixtures");
  for (const capture of captures) {
    if (
      (only.cli !== undefined && capture.cli !== only.cli) ||
      (only.scenario !== undefined && capture.scenario !== only.scenario) ||
      (only.name !== undefined && capture.name !== only.name)
    )
      continue;
    const dir = join(fixtures, capture.cli);
    mkdirSync(dir, { recursive: true });
    const { stdout, stderr, exit, outFile } = await runCapture(capture, bins[capture.cli], uid);
    writeFileSync(join(dir, `${capture.name}.jsonl`), stdout);
    const stderrPath = join(dir, `${capture.name}.stderr.txt`);
    if (stderr.length > 0) writeFileSync(stderrPath, stderr);
    else rmSync(stderrPath, { force: true });
    const exitsPath = join(dir, "exits.json");
    const exits = { ...readJson(exitsPath), [capture.name]: exit };
    const ordered = Object.fromEntries(Object.entries(exits).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(exitsPath, `${JSON.stringify(ordered, null, 2)}\n`);
    if (capture.name === "plain") writeFileSync(join(dir, "cut_mid_record.jsonl"), cutMidRecord(stdout));
    const lines = stdout
      .toString("utf8")
      .split("\n")
      .filter((l) => l.length > 0).length;
    say(
      `${capture.cli} ${capture.name}: ${exit.stoppedBy === "exit" ? `exit ${String(exit.exitCode ?? exit.signal)}` : `stopped (${exit.stoppedBy})`}` +
        ` in ${exit.durationMs} ms, ${lines} lines, ${exit.modelRequests} model requests` +
        (stderr.length > 0 ? `, ${stderr.length} bytes of stderr` : "") +
        (outFile !== undefined ? `, out/answer.txt = ${JSON.stringify(outFile)}` : ""),
    );
  }

  writeFileSync(
    join(fixtures, "versions.json"),
    `${JSON.stringify(
      {
        claude: versions["CLAUDE_VERSION"],
        codex: versions["CODEX_VERSION"],
        claudeModel: CLAUDE_MODEL,
        codexModel: CODEX_MODEL,
        capturedBy: "scripts/capture-fixtures.ts against test/stand-in/",
      },
      null,
      2,
    )}\n`,
  );
}

main().catch((error: unknown) => {
  say(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
