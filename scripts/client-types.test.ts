// The committed client types match the service this tree builds: a route, schema or description
// changed without `npm run client:types` fails here, with no engine and no port.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_FILE, clientTypes, clientTypesOf } from "./client-types.js";

const committed = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", CLIENT_TYPES_FILE);

describe("the typed client's generated types", () => {
  it("are what openapi-typescript makes of the service's document now (else: npm run client:types)", async () => {
    expect(await clientTypes(), `${CLIENT_TYPES_FILE} is stale; run npm run client:types`).toBe(readFileSync(committed, "utf8"));
  });

  it("change when the document does", async () => {
    const one = await clientTypesOf({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: { "/a": { get: { operationId: "a", responses: { 200: { description: "ok" } } } } },
    });
    expect(one).toContain('"/a"');
    expect(one).not.toBe(readFileSync(committed, "utf8"));
  });
});
