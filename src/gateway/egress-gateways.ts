// One egress proxy per engine of a set: a Run's own network lives on the engine it was placed on,
// so the proxy that network joins must live there too. Started at once on every engine that answers;
// on one that did not, when a Run is first placed there; on one back after a drain, or whose proxy a
// Run could not register with, again when its container is gone (the engine's restart removed it). Invariant: an engine has at most one proxy
// in use, every proxy is this set's to stop, and close() stops every one it started.

import type { Logger } from "pino";
import { DEFAULT_EGRESS_PORT } from "../egress/index.js";
import type { Engine } from "../engine/index.js";
import { RunRequestError, type DegradationReport, type Degradations, type EngineSet } from "../runtime/index.js";
import { EGRESS_ALIAS, startEgressGateway, type EgressGateway, type EgressGatewayOptions } from "./egress-gateway.js";

export type EgressGatewaySet = {
  /** The host name every Run's agent reaches its engine's proxy by: the same on every engine. */
  readonly alias: string;
  readonly port: number;
  /** As EgressGateway.codexModel, the same for every proxy of the set. */
  readonly codexModel?: string;
  /**
   * The proxy of the engine named: the one started, or one started now when it has none yet (its
   * engine did not answer at the start) or a restart was found to have removed it. Rejects
   * (RunRequestError) naming the engine when it cannot start there.
   */
  readonly forEngine: (name: string) => Promise<EgressGateway>;
  /**
   * The proxy of the engine named, once checked: the one started while its container still runs,
   * else one started now. For a proxy that stopped answering (a Run could not register with it).
   */
  readonly recheck: (name: string) => Promise<EgressGateway>;
  /** The proxies started so far and in use, by the engine they are on. */
  readonly started: () => Promise<ReadonlyArray<{ readonly engine: string; readonly gateway: EgressGateway }>>;
  /** Stops every proxy it started and lets go of the engines' return. */
  readonly close: () => Promise<void>;
};

export type EgressGatewaySetOptions = Omit<EgressGatewayOptions, "engine" | "docker" | "engineName"> & {
  /** The engines the Runs are placed on (createEngineSet), each given a proxy of its own. */
  readonly engines: EngineSet;
  /** Told when an engine's proxy is found gone (degraded until one runs there again); default: the log alone. */
  readonly degradations?: Degradations;
};

/**
 * Starts a proxy on every engine of the set that answers now, together; resolves once each listens.
 * Throws (RunRequestError, naming the engine) when one that answers cannot start its proxy (its
 * image is not there, say): a Run placed there could never reach its model. An engine that does
 * not answer now gets its proxy when a Run is first placed on it.
 */
export async function startEgressGateways(options: EgressGatewaySetOptions): Promise<EgressGatewaySet> {
  const { engines: set, degradations, ...common } = options;
  const proxies = new Map<string, Promise<EgressGateway>>();
  let closed = false;
  const engineNamed = (name: string): Engine => {
    const found = set.engines().find((one) => one.name === name);
    if (found === undefined) throw new RunRequestError(`the engine ${JSON.stringify(name)} is not one of the set's (${set.names.join(", ")})`);
    return found.engine;
  };
  const start = (name: string): Promise<EgressGateway> => {
    const starting = (async () => {
      if (closed) throw new RunRequestError(`the egress proxies are closed; no proxy is started on the engine ${JSON.stringify(name)}`);
      try {
        const started = await startEgressGateway({ ...common, engine: engineNamed(name), engineName: name, ...withEngine(common.logger, name) });
        // One found gone before runs there again.
        degradations?.clear("egress-proxy", name);
        return started;
      } catch (error) {
        throw new RunRequestError(
          `the egress proxy could not start on the engine ${JSON.stringify(name)}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    })();
    proxies.set(name, starting);
    // A start that failed is tried again by the next Run placed there, not kept as that engine's answer.
    starting.catch(() => (proxies.get(name) === starting ? proxies.delete(name) : undefined));
    return starting;
  };
  /** The proxy the engine has, when its container still runs; else a new one (after its return, or a Run that could not register). */
  const recheck = (name: string, engine: Engine): Promise<EgressGateway> => {
    const before = proxies.get(name);
    const checking = (async () => {
      const gateway = await before?.catch(() => undefined);
      if (gateway !== undefined) {
        const state = await engine.inspect(gateway.container).catch(() => undefined);
        if (state?.running === true) return gateway;
        // Said once: by the board when there is one (degraded until it runs again), else here.
        if (degradations === undefined)
          common.logger?.info({ engine: name, container: gateway.container }, "the engine's egress proxy is gone; starting it again");
        else degradations.raise(proxyGone(name));
        // Its container is gone; this lets go of its control connection and removes its control directory.
        await Promise.resolve(gateway.close()).catch(() => undefined);
      }
      proxies.delete(name);
      return start(name);
    })();
    proxies.set(name, checking);
    checking.catch((error: unknown) => {
      if (proxies.get(name) === checking) proxies.delete(name);
      common.logger?.warn(
        { engine: name, err: error instanceof Error ? error.message : String(error) },
        "the egress proxy of an engine could not start again; the next Run placed there tries again",
      );
    });
    return checking;
  };
  // Back after a drain: the engine's restart may have removed its proxy (as it removes every container it ran).
  const unsubscribe = set.onReturn((name, engine) => void recheck(name, engine).catch(() => undefined));
  const close = async (): Promise<void> => {
    closed = true;
    unsubscribe();
    const all = [...proxies.values()];
    proxies.clear();
    await Promise.all(all.map((p) => p.then((gateway) => gateway.close()).catch(() => undefined)));
  };
  const answering = await set.answering();
  const first = await Promise.allSettled(answering.map(({ name }) => start(name)));
  const failed = first.find((one): one is PromiseRejectedResult => one.status === "rejected");
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  return {
    alias: EGRESS_ALIAS,
    port: DEFAULT_EGRESS_PORT,
    ...(common.codexModel === undefined ? {} : { codexModel: common.codexModel }),
    forEngine: (name) => proxies.get(name) ?? start(name),
    recheck: async (name) => recheck(name, engineNamed(name)),
    started: async () => {
      const settled = await Promise.all([...proxies].map(async ([engine, p]) => ({ engine, gateway: await p.catch(() => undefined) })));
      return settled.filter((one): one is { engine: string; gateway: EgressGateway } => one.gateway !== undefined);
    },
    close,
  };
}

/** An engine's proxy found gone: its Runs' tokens went with it, until one is started there again. */
function proxyGone(engine: string): DegradationReport {
  return {
    kind: "egress-proxy",
    subject: engine,
    reason: `the egress proxy on the engine ${JSON.stringify(engine)} was found gone (its Runs' tokens with it); it is started again, and the next Run placed there tries again if it cannot be`,
    fix: `see why its container went (docker -H <engine ${engine}> events, the engine's log); if it cannot start again, agentcage doctor --engine checks that engine and its images`,
  };
}

/** The proxy's log lines say which engine's proxy wrote them. */
function withEngine(logger: Logger | undefined, engine: string): { readonly logger?: Logger } {
  return logger === undefined ? {} : { logger: logger.child({ engine }) };
}
