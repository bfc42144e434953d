// What one Run may be given beside its prompt (RunOptions), and the session store it keeps or
// resumes. Types only, in a file of their own: every step of a Run reads them, and none of those
// steps may import the runtime that calls it.

import type { RunInputs, SecretFile } from "../../staging/index.js";
import type { RunTrace } from "../../trace/index.js";
import type { RunNetwork } from "../network/index.js";

/** What one Run may be given beside its prompt: a signal, its own timeout, inputs, a Harvest, secrets. Each is optional. */
export type RunOptions = {
  readonly signal?: AbortSignal;
  /** Overrides the declaration's timeout for this Run; 1 s to 24 h. It covers staging and the Harvest too. */
  readonly timeoutSeconds?: number;
  /** What to copy into the Run's `work/` (needs `staging`); default: nothing. */
  readonly inputs?: RunInputs;
  /**
   * Absolute directory to Harvest `out/` into after the Run (needs `staging`). It must not exist, or
   * be empty, unless `replaceHarvestTo` is set; it may not overlap the inputs. With `writableWork`,
   * what the agent changed is harvested: `files/`, `changes.patch`, `changes.json`. Default: no Harvest.
   */
  readonly harvestTo?: string;
  /** Replace a `harvestTo` that already holds files, whole; default false: such a Run is refused before it starts. */
  readonly replaceHarvestTo?: boolean;
  /** Environment for this Run only (an agent's credential): secret, masked everywhere, never in argv. Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Files for this Run only (a CLI's login), mounted read-only where the agent expects them; their
   * content is secret and masked, and they are removed with the Run even when the record is kept.
   * Needs `staging`. Default: none.
   */
  readonly secretFiles?: readonly SecretFile[];
  /**
   * Values for this Run only that its container's own launcher writes, each to a file named like its
   * key under TMPFS_SECRETS_DIR on the container's tmpfs, before the agent gets a byte: a key its CLI
   * reads with a helper command (tmpfsSecretCommand), so that it is in no argv, no environment, no
   * `docker inspect` and no file on the host. Secret and masked like `env`. A Run given any is served
   * by the launcher, warm (in its claim) or cold. Names: TMPFS_SECRET_NAME. Default: none.
   */
  readonly tmpfsSecrets?: Readonly<Record<string, string>>;
  /** More values to mask in this Run only (tokens inside a secret file, say); default: none. */
  readonly secrets?: readonly string[];
  /**
   * A session store (needs `staging`): a directory that outlives the container, where the agent keeps
   * its sessions. Mounted writable at `agentPath`; after the Run it is kept under the session id the
   * reader's verdict names (`sessionId`). With `resume`, the Run gets that session's kept store, and
   * a session with none ends the Run as invalid_request before anything starts. Default: none.
   */
  readonly sessionStore?: SessionStoreOptions;
  /**
   * The stall watchdog: a Run whose agent prints nothing (no byte on stdout or stderr) and uses no
   * CPU for this long ends as `stalled`; a long tool call (a test suite, a build) burns CPU and is
   * not a stall. Whole seconds, 1 to 86400. Default: no watchdog, since only the caller knows how
   * long its agent may think in silence (the agent runners pass their own default).
   */
  readonly stallSeconds?: number;
  /**
   * Called when half of stallSeconds has passed with no output and no CPU use, with how long the
   * silence has lasted; called again only after the agent was active and went silent again. It must
   * not throw (a throw is logged and ignored). Default: none.
   */
  readonly onStallWarning?: (info: { readonly silentMs: number }) => void;
  /**
   * The id this Run takes, made by `newRunId()`, when something must know it before the Run starts
   * (the egress proxy registers the Run under it). Default: a new one.
   */
  readonly runId?: string;
  /**
   * A network of the Run's own instead of the declared ones, made before its container and removed
   * after it: `{ kind: "internal", attach: { container, alias } }` gives the agent exactly one
   * reachable peer (the egress proxy). Default: the declaration's networks.
   */
  readonly network?: RunNetwork;
  /**
   * The Run's span when the caller made it (the agent runner does, to add what it knows): the Run's
   * steps are its children and the caller ends it. Default: run() starts its own `agentcage.run`
   * under the active context and ends it with the Outcome (a no-op without a registered tracer provider).
   */
  readonly trace?: RunTrace;
  /**
   * More of the Run's environment, decided once the Run knows its container: called with the
   * environment a pool member's head start was made with (PoolOptions.headStart) when the Run was
   * given such a member, else undefined; resolves with variables added to `env` (secret and masked
   * like it). The egress proxy's token is registered here, so that a Run may take the one its
   * member holds. A rejection ends the Run `unavailable` before its agent gets anything. Default: none.
   */
  readonly envAtClaim?: (offered: Readonly<Record<string, string>> | undefined) => Promise<Readonly<Record<string, string>>>;
  /**
   * The Run's environment and own network, decided once it is placed (RuntimeOptions.engines), with
   * the name of the engine it was placed on (undefined with one engine): the egress proxy of that
   * engine registers the Run's token here, and the network joins that proxy. What it resolves with
   * is added to `env` (secret and masked like it) and replaces `network`. A rejection ends the Run
   * `unavailable`, with its message, before anything of it is made. Default: none.
   */
  readonly atPlacement?: (engine: string | undefined) => Promise<PlacedRun>;
};

/** What atPlacement decides for a Run once it knows its engine. */
export type PlacedRun = {
  readonly env?: Readonly<Record<string, string>>;
  readonly network?: RunNetwork;
};

export type SessionStoreOptions = {
  /** Separates one agent's sessions from another's (one per CLI), a plain name. */
  readonly namespace: string;
  /** Absolute path inside the container where the agent keeps its sessions. */
  readonly agentPath: string;
  /** The session to hand this Run; default: a new one. */
  readonly resume?: string;
};
