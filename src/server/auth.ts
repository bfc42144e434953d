// Bearer-token access: every route but /healthz and /readyz needs `Authorization: Bearer <token>`,
// compared in constant time (digests of equal length, so neither the token nor its length leaks
// through timing). The token comes from the operator; it is never logged or echoed.

import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { errorBody } from "./schemas.js";

// The A2A agent card is public (A2A §5.4: it tells a client how to authenticate; ours holds no secret).
const OPEN_ROUTES = new Set(["/healthz", "/readyz", "/.well-known/agent-card.json"]);

export function registerAuth(app: FastifyInstance, token: string): void {
  const expected = createHash("sha256").update(token).digest();
  app.addHook("onRequest", async (request, reply) => {
    if (OPEN_ROUTES.has(request.url.split("?")[0] ?? "")) return;
    const header = request.headers.authorization ?? "";
    const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
    const digest = createHash("sha256").update(given).digest();
    if (given === "" || !timingSafeEqual(digest, expected)) {
      await reply
        .code(401)
        .header("WWW-Authenticate", 'Bearer realm="agentcage"')
        .send(errorBody("unauthorized", "this route needs Authorization: Bearer <token>, the token the service was started with (AGENTCAGE_TOKEN)"));
    }
  });
}
