// The console's files as the service serves them, over a real socket with no engine: the page at /
// without a key, under a Content-Security-Policy that lets it run only its own script and reach only
// its own service; hashed assets cached for a year, the page revalidated (304); every other answer
// marked as data that can run nothing; a service whose console was not built says how to build it.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../serve/index.js";
import { CONSOLE_POLICY } from "./console.js";
import { openFeed } from "../runs/index.js";
import { createRunMetrics } from "../metrics/index.js";
import type { RunService } from "../runs/index.js";
import { openTenancy } from "../tenancy/index.js";

const TOKEN = "a-token-for-the-console-files";
/** What every answer but the page carries: data, never a page that could run anything. */
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";
const PAGE = '<!doctype html><script type="module" src="/console/assets/index-abc123.js"></script>';
const SCRIPT = "console.log('the console');";
const service = {
  page: async () => ({ records: [], more: false }),
  get: async () => undefined,
  live: () => [],
  tenants: () => [],
  counts: () => ({ queued: 0, running: 0 }),
} as unknown as RunService;
const scratch = mkdtempSync(join(tmpdir(), "agentcage-console-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function started(consoleDirectory: string): Promise<{ app: FastifyInstance; url: string }> {
  const state = mkdtempSync(join(scratch, "state-"));
  const app = await buildApp({
    service,
    token: TOKEN,
    tenancy: await openTenancy(state),
    feed: await openFeed(state),
    quotasOf: () => ({ maxRunning: 1, maxQueued: 1 }),
    readiness: async () => ({ ready: true, engine: true, image: true, credentials: {}, slots: { total: 1, running: 0, queued: 0 } }),
    facts: {
      version: "0.0.0",
      startedAt: new Date().toISOString(),
      agentImage: "agentcage-agent:latest",
      standIn: false,
      egress: async () => ({ networkPolicy: "none", proxy: "none" }),
    },
    logger: pino({ level: "silent" }),
    metrics: createRunMetrics(() => new Map()),
    consoleDirectory,
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url };
}

describe("the console's files", () => {
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    const built = join(scratch, "built");
    mkdirSync(join(built, "assets"), { recursive: true });
    writeFileSync(join(built, "index.html"), PAGE);
    writeFileSync(join(built, "assets", "index-abc123.js"), SCRIPT);
    ({ app, url } = await started(built));
  });
  afterAll(() => app.close());

  it("serves the page at / and /console/ without a key, under a strict Content-Security-Policy, revalidated each time", async () => {
    for (const path of ["/", "/console/", "/console"]) {
      const page = await fetch(`${url}${path}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe(PAGE);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("content-security-policy")).toBe(CONSOLE_POLICY);
      expect(page.headers.get("cache-control")).toBe("no-cache");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(CONSOLE_POLICY).toContain("script-src 'self'");
    expect(CONSOLE_POLICY).not.toContain("unsafe");
    const etag = (await fetch(url)).headers.get("etag") as string;
    expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  it("serves a hashed asset cached for a year, as a file that runs nothing opened alone, and refuses one it does not have", async () => {
    const script = await fetch(`${url}/console/assets/index-abc123.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(SCRIPT);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(script.headers.get("content-security-policy")).toBe(DATA_POLICY);
    const missing = await fetch(`${url}/console/assets/index-000000.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe("not_found");
    expect(missing.headers.get("content-security-policy")).toBe(DATA_POLICY);
  });

  it("asks for a key everywhere else, and marks every other answer as data that runs nothing", async () => {
    expect((await fetch(url, { method: "POST" })).status).toBe(401);
    expect((await fetch(`${url}/console/other`)).status).toBe(401);
    const runs = await fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(runs.status).toBe(200);
    expect(runs.headers.get("content-security-policy")).toBe(DATA_POLICY);
    expect(runs.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("a service whose console was not built", () => {
  it("answers / with 404 saying how to build it", async () => {
    const { app, url } = await started(join(scratch, "never-built"));
    try {
      const page = await fetch(url);
      expect(page.status).toBe(404);
      expect(page.headers.get("content-security-policy")).toBe(DATA_POLICY);
      const body = (await page.json()) as { error: string; message: string };
      expect(body.error).toBe("not_found");
      expect(body.message).toContain("npm run build");
    } finally {
      await app.close();
    }
  });
});
