// One pool member made ahead of its Run: its own (empty) Run directory, its own network with the
// egress proxy already joined, and its container created, attached and started, running only the
// launcher. Invariant: a member holds nothing of any Run (no secret, no caller's data, no per-Run
// argv): the declaration's secret environment and everything per Run arrive in the claim. What
// making it made is undone when any step fails, and by discardMember whatever stage it reached.

import { rm } from "node:fs/promises";
import {
  agentWorkdirOf,
  composeSpec,
  containerName,
  DEFAULT_OWNER,
  resolveAgentUser,
  type ComposedSpec,
  type ValidatedContainer,
} from "../../container/index.js";
import { engineMessage, engineShownGone, type ContainerStreams, type Engine } from "../../engine/index.js";
import { prepareRunDirectory, runDirectory, stagedMounts, unmountUnder, DEFAULT_WRITABLE_BYTES } from "../../staging/index.js";
import { ENGINE_CLEANUP_TIMEOUT_MS, ENGINE_HEALTH_INTERVAL_MS, ENGINE_SLOW_RECHECK_MAX_MS } from "../limits.js";
import { ownershipLabels, type Ownership } from "../ownership/index.js";
import { encodeHeadStart, launcherWords } from "./pool-launcher.js";
import type { RunAddresses } from "../network/index.js";
import { closeRunNetwork, openRunNetwork, runNetworkName, type RunNetwork } from "../network/index.js";
import { bounded } from "../stop.js";

/** The label every pool member's container, directory and network carries (its value: the runtime's session). */
export const POOL_LABEL = "agentcage.pool";

/** What a member needs of its runtime: the declaration, the engine, where its network's subnet comes from. */
export type MemberMaker = {
  readonly container: ValidatedContainer;
  readonly engine: Engine;
  readonly owner: string;
  readonly session: string;
  readonly addresses: RunAddresses;
  /** The member's ownership: this session's and process's, with the latest deadline a Run it serves may have. */
  readonly ownership: () => Ownership;
  /** Seconds the launcher waits for its claim before it exits by itself, asked as each member is made. */
  readonly launcherIdleSeconds: () => number;
  /** The network every member is made on (kind and the peer joined to it); undefined: the declared networks. */
  readonly network?: Pick<RunNetwork, "kind" | "attach">;
  /** Each member's head start (PoolOptions.headStart); undefined: none. */
  readonly headStart?: () => HeadStartPlan | undefined;
};

/**
 * The agent a member starts ahead: its plan words and the Run environment it is started with, values
 * made for this member alone (a token worth nothing until a Run binds it), never a caller's.
 */
export type HeadStartPlan = {
  readonly words: readonly string[];
  readonly env: Readonly<Record<string, string>>;
};

/** A member ready for its Run. */
export type Member = {
  /** The member's own id (16 hex, like a Run's): its container's, directory's and network's name. */
  readonly id: string;
  /** What it was created from; a Run's claim runs its container under this spec's name and stop signal. */
  readonly spec: ComposedSpec;
  readonly containerId: string;
  readonly streams: ContainerStreams;
  /** Its work/ (staged declarations): adopted whole into the claiming Run's directory. */
  readonly work?: string;
  /** Its own network's ranges, told to the Run's peer at the claim; undefined without one. */
  readonly network?: { readonly subnets: readonly string[]; readonly subnet: string | undefined };
  /** Epoch ms after which its labels let any sweep take it: a Run that would outlast it is not given it. */
  readonly deadline: number;
  /** Settles when its container is shown stopped (before a claim: it is of no use any more); a wait that broke on a running one is not that (stoppedOf). */
  readonly stopped: Promise<void>;
  /**
   * Its agent, started ahead: the plan words, the whole environment a Run's spec would give it (what a
   * claim is compared with), and the member's own Run environment, offered to the claiming Run.
   */
  readonly headStart?: {
    readonly words: readonly string[];
    readonly env: ReadonlyArray<readonly [string, string]>;
    readonly runEnv: Readonly<Record<string, string>>;
  };
};

/**
 * A new member of id `id` (newRunId()), or the reason it could not be made (everything of it already
 * undone). The caller lists `id` among this process's live Runs before: a sweep meanwhile must not take its directory.
 * `signal` (the pool closing) takes it out of the engine's line while its network waits its turn.
 */
export async function makeMember(maker: MemberMaker, id: string, signal?: AbortSignal): Promise<Member | { readonly failed: string }> {
  const ownership = maker.ownership();
  const labels = { ...ownershipLabels(ownership), [POOL_LABEL]: maker.session };
  const made: { directory?: boolean; network?: string | undefined; networkOpen?: boolean; container?: boolean } = {};
  try {
    const work = await stageMemberDirectory(maker, id, ownership);
    made.directory = work !== undefined;
    let network: Member["network"];
    if (maker.network !== undefined) {
      const opened = await openRunNetwork(maker.engine, id, maker.network, labels, maker.owner, maker.addresses, signal, true);
      if ("refused" in opened) return await undone(maker, id, made, opened.refused);
      made.networkOpen = true;
      made.network = opened.subnet;
      network = { subnets: opened.subnets, subnet: opened.subnet };
    }
    const spec = memberSpec(maker, id, labels);
    made.container = true;
    const containerId = await maker.engine.create(spec);
    const streams = await maker.engine.attach(containerId);
    await maker.engine.start(containerId);
    const headStart = headStartOf(maker, id);
    if (headStart !== undefined) streams.stdin.write(encodeHeadStart(headStart));
    const stopped = stoppedOf(maker.engine, containerId);
    return {
      id,
      spec,
      containerId,
      streams,
      ...(work === undefined ? {} : { work }),
      ...(network === undefined ? {} : { network }),
      deadline: Number(ownership.deadline),
      stopped,
      ...(headStart === undefined ? {} : { headStart }),
    };
  } catch (error) {
    return undone(maker, id, made, engineMessage(error));
  }
}

/**
 * Settles once the container is shown stopped (slow is not dead: docs/operations.md): its wait answered, or, when the
 * wait broke, the engine says it is not running, has it no more, or refuses the connection. A wait
 * that broke on a container that runs (a connection reset on a busy engine), or an engine that did not
 * say, is waited again after a backoff: a member is not replaced for it.
 */
async function stoppedOf(engine: Engine, id: string): Promise<void> {
  for (let broken = 0; ; broken++) {
    try {
      await engine.wait(id);
      return;
    } catch (error) {
      if (engineShownGone(error) === "refused") return;
      const state = await engine.inspect(id).then(
        (seen) => (seen === undefined || !seen.running ? "stopped" : "runs"),
        (failure: unknown) => (engineShownGone(failure) === "refused" ? "stopped" : "unknown"),
      );
      if (state === "stopped") return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(ENGINE_HEALTH_INTERVAL_MS * 2 ** broken, ENGINE_SLOW_RECHECK_MAX_MS)).unref());
  }
}

/** The member's container spec: the declaration without its secret environment, on the member's network, running the launcher. */
function memberSpec(maker: MemberMaker, id: string, labels: Readonly<Record<string, string>>): ComposedSpec {
  const { container } = maker;
  // The declaration's secret variables (env, and --env of its extra args) come with the claim.
  const { env: _secretEnv, ...rest } = container;
  const withoutSecrets: ValidatedContainer = { ...rest, extra: { ...container.extra, env: [] } };
  const agentWorkdir = agentWorkdirOf(container);
  return composeSpec(withoutSecrets, {
    runId: id,
    planArgs: launcherWords(maker.launcherIdleSeconds()),
    labels,
    ...(maker.network === undefined ? {} : { networks: [runNetworkName(id)] }),
    ...(agentWorkdir === undefined ? {} : { stagedMounts: stagedMounts(id, agentWorkdir, false) }),
  });
}

/**
 * The member's head start, its environment as a Run's composed spec would have it; none when the
 * declaration holds a secret (it would reach the member before any claim) or the plan gives no words.
 */
function headStartOf(maker: MemberMaker, id: string): Member["headStart"] {
  const { container } = maker;
  if (Object.keys(container.env ?? {}).length > 0 || container.extra.env.length > 0) return undefined;
  const plan = maker.headStart?.();
  if (plan === undefined || plan.words.length === 0) return undefined;
  const spec = composeSpec(container, { runId: id, planArgs: [...plan.words], runEnv: plan.env });
  return { words: [...plan.words], env: spec.env, runEnv: { ...plan.env } };
}

/** The member's Run directory (staged declarations): empty inputs and prompt, out/ bounded and the agent's. Its work/, or undefined without staging. */
async function stageMemberDirectory(maker: MemberMaker, id: string, ownership: Ownership): Promise<string | undefined> {
  const { container } = maker;
  const staging = container.staging;
  if (staging === undefined) return undefined;
  const directory = await prepareRunDirectory({
    runtimeDir: staging.runtimeDir,
    runId: id,
    owner: container.owner ?? DEFAULT_OWNER,
    inputs: {},
    promptText: "",
    writableWork: false,
    agentUser: resolveAgentUser(container.user),
    ownership,
    writableBytes: staging.writableBytes ?? DEFAULT_WRITABLE_BYTES,
  });
  return directory.work;
}

async function undone(
  maker: MemberMaker,
  id: string,
  made: { directory?: boolean; network?: string | undefined; networkOpen?: boolean; container?: boolean },
  why: string,
) {
  await removeMemberParts(maker, id, made.container === true, made.networkOpen === true, made.network, made.directory === true);
  return { failed: why };
}

/**
 * Removes a member that will serve no Run (idle too long, stopped, the pool closing, a claim that
 * failed before the Run had it): its container, network and directory. Never throws; what it cannot
 * remove the sweep does (the member's labels and run.json name this session).
 */
export async function discardMember(maker: MemberMaker, member: Member): Promise<void> {
  member.streams.close();
  await removeMemberParts(maker, member.id, true, member.network !== undefined, member.network?.subnet, member.work !== undefined);
}

/** Removes the member's directory (what is left of it once a Run adopted its work/). */
async function removeMemberDirectory(container: ValidatedContainer, id: string): Promise<void> {
  const runtimeDir = container.staging?.runtimeDir;
  if (runtimeDir === undefined) return;
  const root = runDirectory(runtimeDir, id).root;
  await unmountUnder(root).catch(() => undefined);
  await rm(root, { recursive: true, force: true }).catch(() => undefined);
}

async function removeMemberParts(
  maker: MemberMaker,
  id: string,
  container: boolean,
  network: boolean,
  subnet: string | undefined,
  directory: boolean,
): Promise<void> {
  const { engine } = maker;
  if (container) await bounded(engine.remove(containerName(id)), ENGINE_CLEANUP_TIMEOUT_MS, "remove").catch(() => undefined);
  if (network) {
    await closeRunNetwork(engine, id, subnet, maker.addresses).catch(() => undefined);
  }
  if (directory) await removeMemberDirectory(maker.container, id);
}
