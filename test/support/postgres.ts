// A Postgres of the tests' own: a cluster made with initdb under a directory in the temp dir, started
// with pg_ctl on a free loopback port (and a socket in that directory), trust auth on loopback only,
// as an unprivileged user (the `postgres` user Debian's package made, when the tests run as root).
// `npm run provision` installs Debian's postgresql; nothing here installs anything. Invariant: it
// fails, never skips, when Postgres cannot start, and saying why (the server's own log).

import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
/** Where the globalSetup (postgres-once.ts) hands its cluster's URL to every test file of the run. */
export const TEST_POSTGRES_ENV = "AGENTCAGE_TEST_POSTGRES_URL";
/** The superuser initdb makes; trust auth on loopback, so no password. */
const SUPERUSER = "agentcage";
/** pg_ctl's own wait for the server to accept connections, in seconds: 3x what a busy machine took. */
export const START_TIMEOUT_S = 90;

export type TestPostgres = {
  /** The cluster's URL (its `postgres` database). */
  readonly url: string;
  /** The directory the cluster lives in: its data, its socket and its log. */
  readonly directory: string;
  /** Stops the server (fast shutdown) and removes its directory. */
  readonly stop: () => Promise<void>;
};

/** Debian puts the server's programs in its versioned directory, off PATH: the newest one, when initdb is not on PATH. */
async function binDirectory(): Promise<string> {
  const onPath = await run("sh", ["-c", "command -v initdb"]).then(
    ({ stdout }) => stdout.trim(),
    () => "",
  );
  if (onPath !== "") return join(onPath, "..");
  const debian = "/usr/lib/postgresql";
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(debian, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined)
    throw new Error("no Postgres server programs (initdb) on PATH or in Debian's layout; run `npm run provision`, which installs Debian's postgresql");
  return join(debian, versions[0], "bin");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The unprivileged user the server runs as: this one, or Debian's `postgres` when this is root (initdb refuses root). */
async function serverUser(): Promise<{ readonly wrap: (argv: string[]) => string[]; readonly uid?: number; readonly gid?: number }> {
  if (process.getuid?.() !== 0) return { wrap: (argv) => argv };
  const ids = await run("id", ["-u", "postgres"]).then(
    async ({ stdout }) => ({ uid: Number(stdout.trim()), gid: Number((await run("id", ["-g", "postgres"])).stdout.trim()) }),
    () => undefined,
  );
  if (ids === undefined)
    throw new Error("the tests run as root and there is no `postgres` user to run the server as; run `npm run provision`, which installs Debian's postgresql");
  return { wrap: (argv) => ["runuser", "-u", "postgres", "--", ...argv], ...ids };
}

/** Starts a cluster of the tests' own; rejects, with the server's log, when it cannot. */
export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = await binDirectory();
  const user = await serverUser();
  const directory = mkdtempSync(join(tmpdir(), "agentcage-pg-"));
  if (user.uid !== undefined && user.gid !== undefined) chownSync(directory, user.uid, user.gid);
  const data = join(directory, "data");
  const log = join(directory, "server.log");
  const exec = async (argv: string[]) => {
    const [command, ...args] = user.wrap(argv);
    await run(command as string, args, { cwd: directory }).catch((error: { stderr?: string; message: string }) => {
      const said = existsSync(log) ? readFileSync(log, "utf8").slice(-3000) : "";
      throw new Error(`${argv.slice(0, 2).join(" ")} failed: ${(error.stderr ?? "").trim() || error.message}\n${said}`);
    });
  };
  try {
    await exec([join(bin, "initdb"), "-D", data, "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
    let port = 0;
    // A port free a moment ago may be taken by the time the server binds it: a few tries.
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      const started = await exec([join(bin, "pg_ctl"), "start", "-D", data, "-l", log, "-w", "-t", String(START_TIMEOUT_S), "-o", options]).then(
        () => undefined,
        (error: Error) => error,
      );
      if (started === undefined) break;
      if (attempt === 3) throw started;
    }
    const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    return {
      url,
      directory,
      stop: async () => {
        await exec([join(bin, "pg_ctl"), "stop", "-D", data, "-m", "fast", "-w"]).catch(() => undefined);
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await exec([join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate"]).catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
}

/** A new empty database in the cluster at `url`, for one test's store; answers its URL. */
export async function createTestDatabase(url: string): Promise<string> {
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const database = new URL(url);
  database.pathname = `/${name}`;
  return database.toString();
}
