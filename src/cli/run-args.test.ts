import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "./options.js";
import { checkRunArguments } from "./run-args.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-run-args-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const inputs = join(root, "in");
mkdirSync(inputs);
const full = join(root, "full");
mkdirSync(full);
writeFileSync(join(full, "kept.txt"), "x");
writeFileSync(join(root, "file"), "x");
symlinkSync(full, join(root, "link"));
symlinkSync(inputs, join(root, "in-link"));
const withOut = join(root, "with-out");
mkdirSync(join(withOut, "out"), { recursive: true });

describe("run's arguments", () => {
  it("make an agent request and absolute paths", async () => {
    const checked = await checkRunArguments({ cli: "codex", prompt: "hi", in: inputs, out: join(root, "new"), maxTurns: 3, timeout: 60, model: "gpt-5.5" });
    expect(checked).toEqual({
      request: { cli: "codex", maxTurns: 3, timeoutSeconds: 60, model: "gpt-5.5" },
      prompt: "hi",
      inputs,
      exclude: [],
      notes: [],
      out: join(root, "new"),
      replace: false,
      writable: false,
    });
  });

  it("carry --exclude globs with --in, and take an --in with its own out/ once it is left out", async () => {
    await expect(checkRunArguments({ cli: "claude", prompt: "hi", in: inputs, exclude: ["out", "**/node_modules"] })).resolves.toMatchObject({
      inputs,
      exclude: ["out", "**/node_modules"],
    });
    await expect(checkRunArguments({ cli: "claude", prompt: "hi", in: withOut, exclude: ["out/"] })).resolves.toMatchObject({ inputs: withOut, notes: [] });
  });

  it("note an --exclude path that names nothing in --in, and never a glob that matches nothing", async () => {
    const checked = await checkRunArguments({ cli: "claude", prompt: "hi", in: withOut, exclude: ["out", "node_modlues", "**/dist", "./out/"] });
    expect(checked.notes).toEqual([
      '--exclude "node_modlues" names nothing in --in, so it leaves nothing out; check its spelling (a glob like "**/node_modlues" reaches below the top)',
    ]);
  });

  it.each([
    [{ cli: "gemini", prompt: "hi" }, 'the agent "gemini" is not one of claude, codex'],
    [{ cli: "claude", prompt: "  " }, "the prompt is empty"],
    [{ cli: "claude", prompt: "hi", model: "-rf" }, '--model "-rf" is not a model id'],
    [{ cli: "claude", prompt: "hi", resume: "yesterday" }, '--resume "yesterday" is not a session id'],
    [{ cli: "claude", prompt: "hi", in: join(root, "missing") }, `--in "${join(root, "missing")}" cannot be read (ENOENT)`],
    [{ cli: "claude", prompt: "hi", in: join(root, "file") }, "is not a directory"],
    [{ cli: "claude", prompt: "hi", writable: true }, "--writable needs --in DIR"],
    [{ cli: "claude", prompt: "hi", out: full }, `--out "${full}" already holds files; pass an empty or new directory, or --replace`],
    [{ cli: "claude", prompt: "hi", out: join(root, "file") }, "is a file, not a directory"],
    [{ cli: "claude", prompt: "hi", in: inputs, out: join(inputs, "o") }, "overlaps --in"],
    [{ cli: "claude", prompt: "hi", in: inputs, out: join(root, "in-link", "o"), replace: true }, "overlaps --in"],
    [{ cli: "claude", prompt: "hi", in: join(root, "in-link"), out: inputs, replace: true }, "overlaps --in"],
    [{ cli: "claude", prompt: "hi", in: inputs, out: inputs }, "overlaps --in"],
    [{ cli: "claude", prompt: "hi", out: join(root, "file"), replace: true }, `--out "${join(root, "file")}" is a file, not a directory`],
    [{ cli: "claude", prompt: "hi", out: "" }, '--out "" is empty'],
    [{ cli: "claude", prompt: "hi", out: join(root, "link"), replace: true }, `--out "${join(root, "link")}" is a link`],
    [{ cli: "claude", prompt: "hi", in: "" }, '--in "" is empty'],
    [
      { cli: "claude", prompt: "hi", in: withOut },
      `--in "${withOut}" already has "out", where the agent writes; leave it out with --exclude out, or rename it`,
    ],
    [
      { cli: "claude", prompt: "hi", in: inputs, exclude: ["src/../dist"] },
      '--exclude "src/../dist" holds "..", which no path below the input directory does; write it as "dist"',
    ],
    [{ cli: "claude", prompt: "hi", effort: "ultra" }, '--effort "ultra" is not one claude takes; write one of low, medium, high, xhigh, max'],
    [{ cli: "claude", prompt: "hi", exclude: ["out"] }, '--exclude "out" leaves paths out of --in DIR, and there is none; pass --in DIR, or drop --exclude'],
    [{ cli: "claude", prompt: "hi", in: inputs, exclude: ["out", "/etc"] }, '--exclude "/etc" is absolute; write a path relative to the input directory'],
    [{ cli: "claude", prompt: "hi", in: inputs, exclude: ["!src"] }, '--exclude "!src" is a negation, which exclude does not take'],
    [
      { cli: "claude", prompt: "hi", in: inputs, exclude: Array.from({ length: 65 }, (_, i) => `d${i}`) },
      "--exclude holds 65 patterns, more than MAX_EXCLUDE_PATTERNS (64)",
    ],
  ])("refuse %j, naming the option and quoting the value", async (args, said) => {
    const refused = await checkRunArguments(args).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toContain(said);
  });

  it("take a full --out with --replace", async () => {
    await expect(checkRunArguments({ cli: "claude", prompt: "hi", out: full, replace: true })).resolves.toMatchObject({ out: full, replace: true });
  });
});
