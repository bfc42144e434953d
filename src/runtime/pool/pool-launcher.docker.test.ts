// Runs against the real engine: the pool's launcher itself, fed its stdin as a member's would be. A
// head start runs ahead and gets nothing until `go`; `run` kills it and becomes the claim's words;
// the Run's timer around a head start ends it as `timeout` would (the same exit codes, cold and warm).

import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { TEST_IMAGE } from "../../../test/support/engine.js";
import { encodeClaim, encodeHeadStart, launcherWords, tmpfsSecretCommand, TMPFS_SECRETS_DIR, type Claim, type HeadStart } from "./pool-launcher.js";

const AGENT_IMAGE = "agentcage-agent:latest";

/** One container running the launcher, given these bytes on stdin; its exit code, stdout and how long it took. */
function launch(image: string, ...parts: Array<Buffer | string>): { code: number | null; stdout: string; stderr: string; ms: number } {
  const started = performance.now();
  const done = spawnSync(
    "docker",
    ["run", "--rm", "-i", "--init", "--read-only", "--tmpfs", "/tmp", "--user", "10002", "--network", "none", image, ...launcherWords(30)],
    { input: Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))), timeout: 60_000 },
  );
  return { code: done.status, stdout: done.stdout.toString(), stderr: done.stderr.toString(), ms: performance.now() - started };
}

const headStart = (script: string, env: Array<[string, string]> = []): Buffer =>
  encodeHeadStart({ words: ["sh", "-c", script, "hs-marker"], env } satisfies HeadStart);
const claim = (value: Claim): Buffer => encodeClaim(value);
/** A go claim: its words are the Run's too (run only were its head start gone). */
const go = (over: Partial<Claim> = {}): Buffer => encodeClaim({ mode: "go", words: ["sh", "-c", "echo not the head start"], env: [], ...over });
const deadline = (seconds: number, graceSeconds: number) => ({ seconds, graceSeconds, signal: "SIGTERM" });
/** Counts processes whose argv names the head start (the pattern does not match itself). */
const HEAD_STARTS_LEFT = 'n=0; for f in /proc/[0-9]*/cmdline; do tr "\\0" " " <"$f" 2>/dev/null | grep -q "hs-mark[e]r" && n=$((n+1)); done; echo "left:$n"';

describe.each([TEST_IMAGE, AGENT_IMAGE])("the pool's launcher in %s", (image) => {
  it("gives a head start nothing until go, then the rest of stdin, its own environment and its exit code", () => {
    const ran = launch(image, headStart('read line; echo "got:$line env:$HS"; exit 7', [["HS", "premade"]]), go(), "hello\n");
    expect(ran.stdout).toBe("got:hello env:premade\n");
    expect(ran.code).toBe(7);
  });

  it("kills a head start that is not the claim's, and runs the claim's words with the claim's environment only", () => {
    const ran = launch(
      image,
      headStart("while :; do sleep 1; done", [["HS", "premade"]]),
      claim({ mode: "run", words: ["sh", "-c", `${HEAD_STARTS_LEFT}; echo "hs:\${HS:-none} run:$RUN"; cat`], env: [["RUN", "mine"]] }),
      "stdin\n",
    );
    expect(ran.stdout).toBe("left:0\nhs:none run:mine\nstdin\n");
    expect(ran.code).toBe(0);
  });

  it("still runs a claim without a head start (go or run), and refuses what is not a claim", () => {
    expect(launch(image, claim({ mode: "run", words: ["sh", "-c", "cat; exit 3"], env: [] }), "x").stdout).toBe("x");
    expect(launch(image, go()).stdout).toBe("not the head start\n");
    expect(launch(image, headStart("cat"), "not a claim\0").code).toBe(125);
  });

  it("writes the claim's tmpfs secrets before its words run, readable by the helper command, in no argv or environment", () => {
    const secret = "sk-tmpfs-secret-value-0123456789";
    const script = [
      `echo "key:$(${tmpfsSecretCommand("the-key")})"`,
      `stat -c "%a" ${TMPFS_SECRETS_DIR}`,
      // Every process's argv and environment, this one's included: the value in none (grep takes it from the file).
      `for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do tr "\\0" " " <"$f" 2>/dev/null; done | grep -c -F -f ${TMPFS_SECRETS_DIR}/the-key`,
    ].join("; ");
    const ran = launch(image, claim({ mode: "run", words: ["sh", "-c", script], env: [], secrets: [["the-key", secret]] }));
    expect(ran.stdout).toBe(`key:${secret}\n700\n0\n`);
    expect(ran.code).toBe(1);
  });

  it("wakes a head start's helper that asked before the claim, on go and on run", () => {
    const secret = "sk-tmpfs-secret-value-head-start";
    const asks = `k=$(${tmpfsSecretCommand("the-key")}); echo "asked:$k"; cat`;
    const warm = launch(image, headStart(asks), go({ secrets: [["the-key", secret]] }), "stdin\n");
    expect(warm.stdout).toBe(`asked:${secret}\nstdin\n`);
    const cold = launch(image, headStart(asks), claim({ mode: "run", words: ["sh", "-c", asks], env: [], secrets: [["the-key", secret]] }), "x\n");
    expect(cold.stdout).toBe(`asked:${secret}\nx\n`);
  });

  it("exits 0 without a claim when stdin closes, and leaves its head start to die with it", () => {
    expect(launch(image, headStart("while :; do sleep 1; done")).code).toBe(0);
  });

  it("ends, stdin still open, when its head start ends before any claim: no Run is handed a dead agent", async () => {
    const child = spawn("docker", ["run", "--rm", "-i", "--init", "--network", "none", image, ...launcherWords(30)], { stdio: ["pipe", "ignore", "ignore"] });
    child.stdin.write(headStart("exit 3"));
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.destroy();
    expect(code).toBe(137);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe("the Run's timer around a head start (agent image: GNU timeout's codes)", () => {
  it("ends a head start at its deadline with the signal, exit 124, as timeout does cold", () => {
    const warm = launch(AGENT_IMAGE, headStart("read line; sleep 30"), go({ deadline: deadline(1, 5) }), "x\n");
    const cold = launch(AGENT_IMAGE, claim({ mode: "run", deadline: deadline(1, 5), words: ["sh", "-c", "read line; sleep 30"], env: [] }), "x\n");
    expect(cold.code).toBe(124);
    expect(warm.code).toBe(124);
    expect(warm.ms).toBeLessThan(10_000);
  });

  it("kills a head start that ignores the signal a grace later, exit 137, as timeout does cold", () => {
    const script = 'trap "" TERM; read line; while :; do sleep 1; done';
    const warm = launch(AGENT_IMAGE, headStart(script), go({ deadline: deadline(1, 1) }), "x\n");
    const cold = launch(AGENT_IMAGE, claim({ mode: "run", deadline: deadline(1, 1), words: ["sh", "-c", script], env: [] }), "x\n");
    expect(cold.code).toBe(137);
    expect(warm.code).toBe(137);
    const noGrace = launch(AGENT_IMAGE, headStart(script), go({ deadline: deadline(1, 0) }), "x\n");
    expect(noGrace.code).toBe(137);
  });

  it("leaves a head start that ends in time its own exit code", () => {
    expect(launch(AGENT_IMAGE, headStart("read line; exit 0"), go({ deadline: deadline(20, 5) }), "x\n").code).toBe(0);
  });
});
