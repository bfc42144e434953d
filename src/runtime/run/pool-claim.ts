// Whether a Run is served by a pool member, and what its claim carries. A Run is served warm only
// when nothing it needs is fixed at create differently from a member: no secret files or session
// store (mounts), a read-only work/, the pool's network, and a timeout within the member's labels.
// Invariant: a Run that cannot be served warm is served cold, and the pool counts why.

import type { ComposedSpec } from "../../container/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import { scaledMs } from "../../liveness/index.js";
import { ENGINE_ANSWER_MARGIN_MS } from "../limits.js";
import type { Claim } from "../pool/index.js";
import type { Member } from "../pool/index.js";
import type { RunContext } from "./run-state.js";

/** The member this Run is served by; undefined when it goes cold (counted with why). */
export function claimMember<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): Member | undefined {
  const pool = ctx.pool;
  if (pool === undefined) return undefined;
  const why = coldBecause(ctx);
  const member = why === undefined ? pool.claim() : undefined;
  if (member !== undefined && member.deadline < Date.now() + ctx.timeoutSeconds * 1000 + ctx.graceMs + scaledMs(ENGINE_ANSWER_MARGIN_MS)) {
    // Its labels would let a sweep take it before this Run's end: not this Run's.
    pool.discard(member);
    pool.cold("timeout beyond a member's deadline");
    return undefined;
  }
  if (member === undefined) {
    pool.cold(why ?? "empty");
    ctx.logger.debug({ runId: ctx.runId, why: why ?? "no member was ready" }, "run served cold");
  }
  return member;
}

function coldBecause<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): string | undefined {
  if (ctx.secretFiles.length > 0) return "secret files";
  if (ctx.sessionStore !== undefined) return "session store";
  if (ctx.container.staging?.writableWork === true) return "writable work";
  const mine = ctx.pool?.network;
  const theirs = ctx.network;
  if (mine === undefined && theirs === undefined) return undefined;
  if (mine === undefined || theirs === undefined || mine.kind !== theirs.kind) return "another network";
  if (mine.attach?.container !== theirs.attach?.container || mine.attach?.alias !== theirs.attach?.alias) return "another network";
  return undefined;
}

/**
 * What the Run's claim hands its member: `go` when the member's head start is already this Run's
 * agent (the same words and the same whole environment), else the Run's plan words and environment
 * (later names win); the Run's timer and tmpfs secrets (not compared: they reach the agent only by file) either way.
 */
export function claimOf(runSpec: ComposedSpec, member: Pick<Member, "headStart">, tmpfsSecrets: Readonly<Record<string, string>> = {}): Claim {
  const deadline = runSpec.deadline === undefined ? {} : { deadline: runSpec.deadline };
  const head = member.headStart;
  const same = head !== undefined && sameWords(head.words, runSpec.planArgs) && samePairs(head.env, runSpec.env);
  const secrets = Object.entries(tmpfsSecrets);
  return { mode: same ? "go" : "run", ...deadline, words: runSpec.planArgs, env: runSpec.env, ...(secrets.length === 0 ? {} : { secrets }) };
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

function samePairs(a: ReadonlyArray<readonly [string, string]>, b: ReadonlyArray<readonly [string, string]>): boolean {
  return a.length === b.length && a.every(([name, value], i) => name === b[i]?.[0] && value === b[i]?.[1]);
}
