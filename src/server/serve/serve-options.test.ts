// serve's refusals of options that cannot go together, or of a pool it could not keep, come before it
// writes anything: a runtime directory handed to a refused serve is left as it was (no service/, no generated token).

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_MEMORY_BYTES } from "../../container/index.js";
import { limits } from "../../runtime/index.js";
import { ServeError, serve, type ServeOptions } from "../index.js";
import { checkServeOptions } from "./serve-options.js";

let runtimeDir: string;
beforeEach(() => {
  runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-serve-options-"));
});
afterEach(() => rmSync(runtimeDir, { recursive: true, force: true }));

describe("serve's network options", () => {
  it.each([
    [{ networkPolicy: "bogus" }, '--network-policy "bogus" is not a policy; write one of none, model, allowlist, open'],
    [
      { networkPolicy: "none", agentNetworks: ["bridge"] },
      "--network-policy none and --agent-network bridge were both given; choose a policy, or declare networks by hand, not both",
    ],
    [{ networkPolicy: "open", standIn: true }, '--stand-in puts the agent on the stand-in model\'s own network, so --network-policy "open" cannot go with it'],
  ] as const)("refuses %j before writing anything in the runtime directory", async (given, message) => {
    const options = { runtimeDir, port: 0, environment: {}, logger: pino({ level: "silent" }), ...given } as ServeOptions;
    const refusal = await serve(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServeError);
    expect((refusal as Error).message).toContain(message);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});

describe("serve's --store", () => {
  it.each([
    ["mysql://someone:hunter2@db/runs", '--store "mysql://someone:****@db/runs" is not a Postgres URL'],
    ["postgres:///runs", '--store "postgres:///runs" names no host'],
    ["runs.db", '--store "runs.db" is not a Postgres URL'],
    ["postgres://someone:hunter2 secret@db host/runs", '--store "postgres://someone:****@db host/runs" is not a Postgres URL'],
    // pg reads a password from the query too.
    ["postgres:///runs?password=hunter2&user=someone", '--store "postgres:///runs?password=****&user=someone" names no host'],
  ])("refuses %s before writing anything, its password masked, saying what it takes", async (store, message) => {
    const options: ServeOptions = { runtimeDir, port: 0, environment: {}, logger: pino({ level: "silent" }), store };
    const refusal = await serve(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServeError);
    expect((refusal as Error).message).toContain(message);
    expect((refusal as Error).message).toContain(
      "write postgres://user@host:5432/database (its password in PGPASSWORD, or the whole URL in AGENTCAGE_STORE, never on the command line) to keep the Runs in Postgres, or leave --store out to keep them in files under --runtime-dir",
    );
    expect((refusal as Error).message).not.toContain("hunter2");
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});

describe("serve's pool options", () => {
  it.each([
    [{ pool: -1 }, "--pool -1 is not a whole number from 0 to 256; write how many agent containers to keep started ahead, e.g. 2, or 0 for none"],
    [{ pool: 2.5 }, "--pool 2.5 is not a whole number from 0 to 256; write how many agent containers to keep started ahead, e.g. 2, or 0 for none"],
    [
      { pool: 2, poolIdleSeconds: 0 },
      "--pool-idle-seconds 0 is not a whole number from 1 to 86400; write how long a pooled container waits for its Run before it is replaced, e.g. 300",
    ],
    [
      { pool: 2, sessions: true },
      "--pool 2 cannot go with --sessions: every Run then keeps its session, and a Run that keeps one always starts cold, so the pool would serve none; leave --sessions out, or set --pool 0",
    ],
    [
      { pool: 2, runFiles: "engine" },
      "--pool 2 cannot go with --run-files engine: a pooled container's work/ is bound from this host's disk before its Run is known; leave --run-files out, or set --pool 0",
    ],
    [
      { runFiles: "nfs" },
      "--run-files \"nfs\" is not one of disk, engine; write engine to have each Run's files go through the engine, or leave it out to bind them from this host's disk",
    ],
  ] as const)("refuses %j before writing anything in the runtime directory", async (given, message) => {
    const options = { runtimeDir, port: 0, environment: {}, logger: pino({ level: "silent" }), ...given } as ServeOptions;
    const refusal = await serve(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServeError);
    expect((refusal as Error).message).toBe(message);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});

describe("serve's kubernetes option", () => {
  const nowhere = JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:9" } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
    "current-context": "c",
  });
  it.each([
    [{ sessions: true }, "--sessions (a session store does not reach a Pod yet) cannot go with --kubernetes; leave it out"],
    [
      { standIn: true },
      "--stand-in with --kubernetes needs --network-policy model or allowlist: the stand-in model runs behind the egress proxy in the cluster, which a Pod reaches only under those; add one, or leave --stand-in out",
    ],
    [{ agentNetworks: ["bridge"] }, "--agent-network (a Docker network, which a Pod has none of) cannot go with --kubernetes; leave it out"],
    [{ poolIdleSeconds: 60 }, "--pool-idle-seconds (Docker containers started ahead; every Pod starts cold) cannot go with --kubernetes; leave it out"],
    [
      { runNetworkRange: "10.9.0.0/16" },
      "--run-network-range (the range of a Run's own Docker network; a Pod's reach is its NetworkPolicy) cannot go with --kubernetes; leave it out",
    ],
    [{ networkPolicy: "open" }, "--network-policy open cannot go with --kubernetes: a Pod reaches only what its NetworkPolicy lets it"],
  ] as const)("refuses %j before asking the cluster or writing anything", async (given, message) => {
    const { createKubeApi } = await import("../../kube/index.js");
    const kubernetes = { api: await createKubeApi({ kubeconfig: nowhere }), namespace: "agents" };
    const options = { runtimeDir, port: 0, environment: {}, logger: pino({ level: "silent" }), kubernetes, ...given } as ServeOptions;
    const refusal = await serve(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServeError);
    expect((refusal as Error).message).toContain(message);
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});

describe("serve's slots", () => {
  const GiB = 1024 ** 3;

  it("are, by default, as many Runs as this host's memory holds at each Run's memory limit", async () => {
    const checked = await checkServeOptions({ runtimeDir, environment: {} });
    expect(checked.slots).toBe(Math.max(1, Math.floor(totalmem() / DEFAULT_MEMORY_BYTES)));
    // The tenants' default and the queue bound follow them.
    expect(checked.tenantDefaults.maxRunning).toBe(checked.slots);
    expect(checked.queueBound).toBeGreaterThanOrEqual(checked.slots);
  });

  it("count 12 on 24 GiB, 1 below one Run's limit, and never more than the runtime takes", () => {
    expect(limits.runsMemoryHolds(24 * GiB)).toBe(12);
    expect(limits.runsMemoryHolds(1 * GiB)).toBe(1);
    expect(limits.runsMemoryHolds(4096 * GiB)).toBe(limits.MAX_CONCURRENT_RUNS);
  });

  it("take up to the runtime's own bound", async () => {
    expect((await checkServeOptions({ runtimeDir, environment: {}, slots: limits.MAX_CONCURRENT_RUNS })).slots).toBe(1024);
  });

  it.each([0, 1.5, 1025])("refuses %j before writing anything in the runtime directory", async (slots) => {
    const refusal = await serve({ runtimeDir, port: 0, environment: {}, logger: pino({ level: "silent" }), slots }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ServeError);
    expect((refusal as Error).message).toBe(
      `--slots ${slots} is not a whole number from 1 to 1024; write how many Runs may run at once, or leave it out for ${limits.runsMemoryHolds()}`,
    );
    expect(readdirSync(runtimeDir)).toEqual([]);
  });
});
