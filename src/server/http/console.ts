// The operator console's files (built by Vite into dist/console/): its page at / (and /console/),
// its hashed scripts and styles at /console/assets/, read once at start and served from memory.
// The page may run only its own script and load only its own files (a strict Content-Security-
// Policy, no inline script or style, nothing fetched from elsewhere); every other answer, its assets
// among them, carries the policy of data that runs nothing; assets are cached for a year
// (their names change with their content), the page is revalidated each time. No key is needed
// to load the page: it holds nothing until it is signed in, and every call it makes carries one.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import { errorBody } from "./schemas.js";

/** src/server/ and dist/server/ are both two folders below the package's root, where dist/console/ is. */
export const CONSOLE_DIRECTORY = fileURLToPath(new URL("../../../dist/console/", import.meta.url));

/** Every path the console is served at: no bearer token is asked for these. */
export function isConsolePath(path: string): boolean {
  return path === "/" || path === "/console" || path === "/console/" || path.startsWith("/console/assets/");
}

export const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** What every other answer of the service carries: it is data, never a page that could run anything. */
const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

const TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

type ConsoleFile = { readonly body: Buffer; readonly type: string; readonly etag: string };

export function registerConsole(app: FastifyInstance, directory = CONSOLE_DIRECTORY): void {
  const page = readIfThere(join(directory, "index.html"));
  const assets = new Map<string, ConsoleFile>();
  const assetsDirectory = join(directory, "assets");
  if (existsSync(assetsDirectory)) for (const name of readdirSync(assetsDirectory)) assets.set(name, consoleFile(join(assetsDirectory, name)));

  // Only the page itself sets its own policy; everything else (its assets, a 404, every API answer) is data.
  app.addHook("onSend", async (_request, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", DATA_POLICY);
    return payload;
  });

  const sendPage = async (request: { headers: Record<string, string | string[] | undefined> }, reply: FastifyReply) => {
    if (page === undefined) {
      const message = "the console is not built into this package (dist/console/index.html is missing); run npm run build, then start the service again";
      return reply.code(404).send(errorBody("not_found", message));
    }
    reply
      .header("content-security-policy", CONSOLE_POLICY)
      .header("referrer-policy", "no-referrer")
      .header("x-frame-options", "DENY")
      .header("cross-origin-opener-policy", "same-origin")
      .header("cache-control", "no-cache")
      .header("etag", page.etag);
    if (request.headers["if-none-match"] === page.etag) return reply.code(304).send();
    return reply.type(page.type).send(page.body);
  };
  for (const path of ["/", "/console", "/console/"]) app.get(path, { schema: { hide: true } }, (request, reply) => sendPage(request, reply));
  app.get("/console/assets/:name", { schema: { hide: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const file = assets.get(name);
    if (file === undefined) return reply.code(404).send(errorBody("not_found", `the console has no file ${JSON.stringify(name)}; reload the page`));
    return reply.header("cache-control", "public, max-age=31536000, immutable").header("etag", file.etag).type(file.type).send(file.body);
  });
}

function readIfThere(path: string): ConsoleFile | undefined {
  return existsSync(path) ? consoleFile(path) : undefined;
}

function consoleFile(path: string): ConsoleFile {
  const body = readFileSync(path);
  return { body, type: TYPES[extname(path)] ?? "application/octet-stream", etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
}
