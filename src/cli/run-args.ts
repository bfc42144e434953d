// `agentcage run`'s arguments checked before anything starts, the same for a local Run and a
// remote one: the prompt, --in and its --exclude globs, --out (never a non-empty one without
// --replace), --writable.
// A wrong one is a UsageError that names the option and quotes the value; nothing is made.

import { lstat, opendir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { AGENT_CLIS, parseAgentRequest, AgentRequestError, type AgentCli, type AgentRequestInput } from "../agents/index.js";
import { OUT_NAME } from "../plan/index.js";
import { excludedBy, excludeProblem, literalPath, pathsOverlap } from "../staging/index.js";
import { inFlagWords, UsageError } from "./options.js";

export type RunArguments = {
  readonly cli: string;
  readonly prompt: string;
  readonly in?: string;
  readonly exclude?: readonly string[];
  readonly out?: string;
  readonly replace?: boolean;
  readonly writable?: boolean;
  readonly model?: string;
  readonly effort?: string;
  readonly maxTurns?: number;
  readonly timeout?: number;
  readonly resume?: string;
  readonly maxTokens?: number;
  readonly maxCost?: number;
  readonly maxWall?: number;
  readonly stall?: number;
};

export type CheckedRun = {
  readonly request: AgentRequestInput & { readonly cli: AgentCli };
  readonly prompt: string;
  /** Absolute. */
  readonly inputs?: string;
  /** Globs of paths under `inputs` the agent never sees (--exclude); empty without --in. */
  readonly exclude: readonly string[];
  /** What the command says before it starts, without refusing: an --exclude that names no path of --in (a typo, most likely). */
  readonly notes: readonly string[];
  /** Absolute. */
  readonly out?: string;
  readonly replace: boolean;
  readonly writable: boolean;
};

export async function checkRunArguments(args: RunArguments): Promise<CheckedRun> {
  if (!(AGENT_CLIS as readonly string[]).includes(args.cli)) {
    throw new UsageError(`the agent ${JSON.stringify(args.cli)} is not one of ${AGENT_CLIS.join(", ")}; write e.g. agentcage run claude "..."`);
  }
  if (args.prompt.trim() === "") throw new UsageError('the prompt is empty; write what the agent should do, e.g. agentcage run claude "Review the diff"');
  const request: { -readonly [K in keyof AgentRequestInput]: AgentRequestInput[K] } & { cli: AgentCli } = {
    cli: args.cli as AgentCli,
    ...(args.model === undefined ? {} : { model: args.model }),
    ...(args.effort === undefined ? {} : { effort: args.effort }),
    ...(args.maxTurns === undefined ? {} : { maxTurns: args.maxTurns }),
    ...(args.timeout === undefined ? {} : { timeoutSeconds: args.timeout }),
    ...(args.resume === undefined ? {} : { resumeSession: args.resume }),
    ...(args.stall === undefined ? {} : { stallSeconds: args.stall }),
  };
  const budget = {
    ...(args.maxTokens === undefined ? {} : { maxTokens: args.maxTokens }),
    ...(args.maxCost === undefined ? {} : { maxCostUsd: args.maxCost }),
    ...(args.maxWall === undefined ? {} : { maxWallSeconds: args.maxWall }),
  };
  if (Object.keys(budget).length > 0) request.budget = budget;
  try {
    parseAgentRequest(request);
  } catch (error) {
    if (error instanceof AgentRequestError) throw new UsageError(inFlagWords(error.message.replace(/^the agent request is invalid: /, "")));
    throw error;
  }
  if (args.in === "") throw new UsageError('--in "" is empty; pass the directory of files the agent should see');
  if (args.out === "") throw new UsageError('--out "" is empty; pass a directory for the agent\'s work, new or empty');
  const inputs = args.in === undefined ? undefined : resolve(args.in);
  if (inputs !== undefined) {
    const facts = await stat(inputs).catch((error: NodeJS.ErrnoException) => error.code ?? "unreadable");
    if (typeof facts === "string") throw new UsageError(`--in ${JSON.stringify(args.in)} cannot be read (${facts}); pass a directory of files for the agent`);
    if (!facts.isDirectory()) throw new UsageError(`--in ${JSON.stringify(args.in)} is not a directory; pass a directory of files for the agent`);
  }
  const exclude = args.exclude ?? [];
  if (exclude.length > 0 && inputs === undefined)
    throw new UsageError(`--exclude ${JSON.stringify(exclude[0])} leaves paths out of --in DIR, and there is none; pass --in DIR, or drop --exclude`);
  const excludeRefusal = excludeProblem(exclude, { directory: inputs });
  // The library names a pattern by its place in the list; the command by the flag it came with.
  if (excludeRefusal !== undefined) throw new UsageError(excludeRefusal.replace(/^inputs\.exclude(\[\d+\])? /, "--exclude "));
  // Staging (and the service) refuse it too; said here it costs no start of anything, with --remote no upload.
  if (inputs !== undefined && !excludedBy(exclude)(OUT_NAME) && (await lstat(join(inputs, OUT_NAME)).catch(() => undefined)) !== undefined) {
    throw new UsageError(
      `--in ${JSON.stringify(args.in)} already has "${OUT_NAME}", where the agent writes; leave it out with --exclude ${OUT_NAME}, or rename it`,
    );
  }
  if (args.writable === true && inputs === undefined) {
    throw new UsageError("--writable needs --in DIR: the agent edits a copy of that directory, and its changes come back as a patch");
  }
  const out = args.out === undefined ? undefined : resolve(args.out);
  // Links resolved: an --out reached through a link into --in would replace the inputs themselves.
  const overlap =
    out === undefined || inputs === undefined ? false : await pathsOverlap(out, inputs).catch((error: NodeJS.ErrnoException) => error.code ?? "unresolvable");
  if (typeof overlap === "string")
    throw new UsageError(`--out ${JSON.stringify(args.out)} cannot be resolved against --in (${overlap}); pass paths this process can read`);
  if (overlap) throw new UsageError(`--out ${JSON.stringify(args.out)} overlaps --in ${JSON.stringify(args.in)}; write the agent's work outside its inputs`);
  const existing = out === undefined ? undefined : await lstat(out).catch(() => undefined);
  if (existing?.isSymbolicLink() === true) {
    throw new UsageError(
      `--out ${JSON.stringify(args.out)} is a link, and the agent's work is never written through one; pass the directory it points to, or a new one`,
    );
  }
  if (existing !== undefined && !existing.isDirectory()) {
    throw new UsageError(`--out ${JSON.stringify(args.out)} is a file, not a directory; pass a directory for the agent's work, new or empty`);
  }
  if (out !== undefined && args.replace !== true && (await holdsFiles(out))) {
    throw new UsageError(`--out ${JSON.stringify(args.out)} already holds files; pass an empty or new directory, or --replace to replace it whole`);
  }
  const notes = inputs === undefined ? [] : await missingExcludes(inputs, exclude);
  return {
    request,
    prompt: args.prompt,
    ...(inputs === undefined ? {} : { inputs }),
    exclude,
    notes,
    ...(out === undefined ? {} : { out }),
    replace: args.replace === true,
    writable: args.writable === true,
  };
}

/** A note for each --exclude that is a plain path (no glob) and names nothing in `inputs`; a glob may match nothing on purpose. */
async function missingExcludes(inputs: string, exclude: readonly string[]): Promise<string[]> {
  const notes: string[] = [];
  for (const pattern of exclude) {
    const path = literalPath(pattern);
    if (path === undefined || (await lstat(join(inputs, path)).catch(() => undefined)) !== undefined) continue;
    notes.push(
      `--exclude ${JSON.stringify(pattern)} names nothing in --in, so it leaves nothing out; check its spelling (a glob like "**/${path}" reaches below the top)`,
    );
  }
  return notes;
}

/** Whether a directory exists with anything in it (a file that is not a directory counts too). */
async function holdsFiles(path: string): Promise<boolean> {
  const facts = await stat(path).catch(() => undefined);
  if (facts === undefined) return false;
  if (!facts.isDirectory()) return true;
  const directory = await opendir(path);
  try {
    return (await directory.read()) !== null;
  } finally {
    await directory.close();
  }
}
