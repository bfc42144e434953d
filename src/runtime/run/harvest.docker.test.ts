// The Harvest never destroys what it was not given, against the real engine: a destination that
// overlaps the inputs or already holds files is refused before any container starts, unless the
// caller asked to replace it; with a writable work/, only what the agent changed comes back, as
// files and a patch that the real `git apply` takes on the inputs.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime, type AgentContainer } from "../../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, docker } from "../../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-harvest-safety-"));
/**
 * The large checkout's own directory: in memory where the machine has /dev/shm (a tmpfs), since
 * making and removing its 100,000 files on a loaded disk took most of this file's time (tens of
 * seconds); where the inputs lie is not what the test checks. Elsewhere beside the rest.
 */
const checkouts = inMemoryWherePossible("agentcage-harvest-checkout-");
/** Without /dev/shm the checkout is on disk, where removing 200,000 files took past 60 s on a loaded 2-core machine: three times that. */
const CLEANUP_TIMEOUT_MS = 180_000;
// GNU rm, faster at this than fs.rmSync.
afterAll(() => execFileSync("rm", ["-rf", scratch, checkouts]), CLEANUP_TIMEOUT_MS);
let counter = 0;
const fresh = (name: string) => join(scratch, `${name}-${++counter}`);

function inMemoryWherePossible(prefix: string): string {
  try {
    return mkdtempSync(join("/dev/shm", prefix));
  } catch {
    return mkdtempSync(join(tmpdir(), prefix));
  }
}

function runtimeFor(script: string, staging: Partial<NonNullable<AgentContainer["staging"]>> = {}) {
  const { logger, lines } = capturingLogger();
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger, staging: { runtimeDir: fresh("runs"), ...staging } },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: collectStdout }),
  });
  const containersMade = () => lines.filter((line) => line.includes('"run started"')).length;
  return { runtime, containersMade };
}

function smallInputs(): string {
  // In a directory of its own, so the one that contains it holds nothing else of the test's.
  const inputs = join(fresh("outer"), "inputs");
  mkdirSync(join(inputs, "src"), { recursive: true });
  writeFileSync(join(inputs, "README.md"), "read me\n");
  writeFileSync(join(inputs, "src", "main.ts"), "console.log(1);\n");
  return inputs;
}

const listing = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

describe("a harvestTo that overlaps the inputs", () => {
  // A link to the inputs, or to the directory that holds them, made beside them.
  const alias = (_inputs: string, target: string): string => {
    const link = fresh("alias");
    symlinkSync(target, link);
    return link;
  };
  for (const [how, where] of [
    ["equals", (inputs: string) => inputs],
    ["lies inside", (inputs: string) => join(inputs, "src")],
    ["contains", (inputs: string) => join(inputs, "..")],
    ["lies, through a link, inside", (inputs: string) => join(alias(inputs, inputs), "src")],
    ["is a link to a directory containing", (inputs: string) => alias(inputs, join(inputs, ".."))],
    ["would lie, once made and through a link, inside", (inputs: string) => join(alias(inputs, inputs), "src", "new", "deeper")],
  ] as const) {
    it(`is refused before any container starts when it ${how} the inputs, whatever the mode`, async () => {
      for (const writableWork of [false, true]) {
        const inputs = smallInputs();
        const before = listing(inputs);
        const { runtime, containersMade } = runtimeFor("echo x > out/x.txt", { writableWork });
        const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs }, harvestTo: where(inputs), replaceHarvestTo: true });
        expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
        expect(outcome.error).toContain("overlaps the inputs directory");
        expect(containersMade()).toBe(0);
        expect(listing(inputs)).toEqual(before);
      }
    });
  }
});

describe("a harvestTo that already holds files", () => {
  it("is refused before the Run, naming replaceHarvestTo, and nothing in it is deleted", async () => {
    const destination = fresh("dest");
    mkdirSync(destination);
    writeFileSync(join(destination, "precious.txt"), "keep me\n");
    const { runtime, containersMade } = runtimeFor("echo x > out/x.txt");
    const outcome = await runtime.run({ text: "" }, { harvestTo: destination });
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request" });
    expect(outcome.error).toContain("replaceHarvestTo: true");
    expect(containersMade()).toBe(0);
    expect(readFileSync(join(destination, "precious.txt"), "utf8")).toBe("keep me\n");
  });

  it("is replaced whole when the caller asks for it", async () => {
    const destination = fresh("dest");
    mkdirSync(destination);
    writeFileSync(join(destination, "old.txt"), "old\n");
    const { runtime } = runtimeFor("echo x > out/x.txt");
    const outcome = await runtime.run({ text: "" }, { harvestTo: destination, replaceHarvestTo: true });
    expect(outcome).toMatchObject({ ok: true, harvest: { ok: true, files: 1 } });
    expect(listing(destination)).toEqual(["x.txt"]);
  });
});

describe("a writable work/ of a large checkout", () => {
  it("harvests the three files the agent touched and a patch that git apply takes on the inputs", async () => {
    const inputs = join(checkouts, "checkout");
    // More entries than MAX_WRITABLE_ENTRIES (100,000): a writable work/ holds the inputs on top of
    // what the agent may make, so a bound of the agent's files alone would refuse this checkout.
    const FILES = 100_000;
    // Made by the shell in one process: a hundred thousand writeFileSync calls take far longer.
    mkdirSync(inputs, { recursive: true });
    execFileSync(
      "sh",
      [
        "-c",
        `for d in $(seq 0 ${FILES / 1000 - 1}); do mkdir -p pkg$d; (cd pkg$d && for f in $(seq 0 999); do printf 'package %s file %s\\nsecond line\\n' $d $f > f$f.txt; done); done`,
      ],
      { cwd: inputs },
    );
    const script = [
      "printf 'package 7 file 7\\nsecond line, edited\\n' > pkg7/f7.txt",
      "printf 'a new file\\n' > pkg9/new.txt",
      "rm pkg3/f3.txt",
      "printf 'package 5 file 5\\nsecond line\\nthird line\\n' > pkg5/f5.txt",
    ].join(" && ");
    const { runtime } = runtimeFor(script, { writableWork: true });
    const destination = fresh("changes");
    const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs }, harvestTo: destination, timeoutSeconds: 600 });
    expect(outcome).toMatchObject({
      ok: true,
      harvest: { ok: true, changes: { added: ["pkg9/new.txt"], changed: ["pkg5/f5.txt", "pkg7/f7.txt"], deleted: ["pkg3/f3.txt"], undiffed: [] } },
    });
    expect(listing(join(destination, "files")).filter((p) => p.endsWith(".txt"))).toEqual(["pkg5/f5.txt", "pkg7/f7.txt", "pkg9/new.txt"]);

    // The real git takes the patch on the inputs (the agent edited the Run's copy of them, so they
    // are as they were: a copy of them would be the same tree) and yields what the agent left.
    execFileSync("git", ["apply", "--check", join(destination, "changes.patch")], { cwd: inputs });
    execFileSync("git", ["apply", join(destination, "changes.patch")], { cwd: inputs });
    expect(readFileSync(join(inputs, "pkg7/f7.txt"), "utf8")).toBe("package 7 file 7\nsecond line, edited\n");
    expect(readFileSync(join(inputs, "pkg5/f5.txt"), "utf8")).toBe("package 5 file 5\nsecond line\nthird line\n");
    expect(readFileSync(join(inputs, "pkg9/new.txt"), "utf8")).toBe("a new file\n");
    expect(readdirSync(join(inputs, "pkg3"))).not.toContain("f3.txt");
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.run=${outcome.runId}`)).toBe("");
  }, 300_000);
});
