// What the service keeps, opened once by serve and handed to whoever needs it: the Run Store (records,
// events, Outcomes, deliveries, idempotency keys), the Run directories' files, the tenancy (tenants,
// keys, audit log) and the events feed. The file store keeps all of it under the runtime directory
// (`service/`), in the format deployments already hold; with a Postgres URL the Run Store is in that
// database and the rest stays in files; the in-memory store keeps all but the Run directories in
// memory, for route tests. Nothing else branches on which one it is.

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createFileRunFiles, createMemoryFeed, createPostgresRunStore, type Feed, fileRuns, openFeed, runsDirectory } from "../runs/index.js";
import type { RunFiles, RunStore } from "../runs/index.js";
import { memoryRuns } from "../runs/index.js";
import { ServeError } from "./serve-options.js";
import { createMemoryTenancy, openTenancy, type Tenancy } from "../tenancy/index.js";

export type ServiceStore = {
  readonly runs: RunStore;
  readonly files: RunFiles;
  readonly tenancy: Tenancy;
  readonly feed: Feed;
  /** Writes what is still on its way (keys' last uses, audit entries, feed entries); resolves once it is stored. */
  readonly flush: () => Promise<void>;
  /** Lets go of what it holds open (a database's connections), after a flush; nothing may be asked of it after. */
  readonly close: () => Promise<void>;
};

export type StoreErrors = {
  /** Told of an audit entry that could not be written; default: nobody. */
  readonly onAuditError?: (error: unknown) => void;
  /** Told of a feed entry that could not be written; default: nobody. */
  readonly onFeedError?: (error: unknown) => void;
};

/** The file store under a runtime directory: `service/runs/<id>/`, `service/tenants.json`, `keys.json`, `key-pepper`, `audit.jsonl`, `feed.jsonl`. */
export async function openFileStore(runtimeDir: string, errors: StoreErrors = {}): Promise<ServiceStore> {
  const { tenancy, feed } = await openServiceFiles(runtimeDir, errors);
  const { store, files } = fileRuns(runtimeDir);
  return storeOf(store, files, tenancy, feed);
}

/** What every store but the in-memory one keeps in files under `<runtimeDir>/service/`: the tenancy and the events feed. */
async function openServiceFiles(runtimeDir: string, errors: StoreErrors): Promise<{ readonly tenancy: Tenancy; readonly feed: Feed }> {
  const serviceDir = join(runtimeDir, "service");
  await mkdir(serviceDir, { recursive: true, mode: 0o700 });
  const tenancy = await openTenancy(serviceDir, errors.onAuditError);
  const feed = await openFeed(serviceDir, errors.onFeedError === undefined ? {} : { onError: errors.onFeedError });
  return { tenancy, feed };
}

/**
 * The Run Store in the Postgres database at `url`, migrated and readied here (a database it cannot reach,
 * or whose schema is newer than this code, refuses the start: ServeError, the URL's password masked);
 * the tenancy, the feed and the Run directories in files under the runtime directory, as the file store keeps them.
 */
export async function openPostgresStore(runtimeDir: string, url: string, errors: StoreErrors = {}): Promise<ServiceStore> {
  const runs = createPostgresRunStore(url);
  try {
    await runs.prepare();
  } catch (error) {
    await runs.close().catch(() => undefined);
    throw new ServeError(error instanceof Error ? error.message : String(error));
  }
  try {
    const { tenancy, feed } = await openServiceFiles(runtimeDir, errors);
    return storeOf(runs, createFileRunFiles(runsDirectory(runtimeDir)), tenancy, feed, runs.close);
  } catch (error) {
    await runs.close().catch(() => undefined);
    throw error;
  }
}

/** The in-memory store; the Run directories (which the runner is handed by path) under `filesDir`. */
export async function createMemoryStore(filesDir: string, errors: StoreErrors = {}): Promise<ServiceStore> {
  const tenancy = await createMemoryTenancy(errors.onAuditError);
  const feed = await createMemoryFeed(errors.onFeedError === undefined ? {} : { onError: errors.onFeedError });
  const { store, files } = memoryRuns(filesDir);
  return storeOf(store, files, tenancy, feed);
}

function storeOf(runs: RunStore, files: RunFiles, tenancy: Tenancy, feed: Feed, close: () => Promise<void> = async () => undefined): ServiceStore {
  return {
    runs,
    files,
    tenancy,
    feed,
    close,
    flush: async () => {
      await tenancy.keys.flush();
      await tenancy.audit.flush();
      await feed.flush();
    },
  };
}
