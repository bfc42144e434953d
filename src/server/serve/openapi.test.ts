// /openapi.json as third-party tools read it, served by the real app over the in-memory store (the
// document is route logic: no engine): `@redocly/cli lint` finds no error and every operation has an
// operationId; the Outcome and the multipart form are schemas. That a client generated from it
// reaches every route of a service with real Runs is openapi.docker.test.ts's. Downloads nothing.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { useAppInMemory } from "../../../test/support/app.js";

const service = useAppInMemory("openapi");
const scratch = mkdtempSync(join(tmpdir(), "agentcage-openapi-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Document = {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: unknown }> } }>>;
};

const documentOf = async (): Promise<Document> => (await service.call(service.token, "/openapi.json")).json() as Document;

describe("/openapi.json", () => {
  it("passes @redocly/cli lint with no error, and names every operation", async () => {
    const file = join(scratch, "openapi.json");
    writeFileSync(file, JSON.stringify(await documentOf()));
    const cli = join(dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")), "bin", "cli.js");
    const linted = await promisify(execFile)(process.execPath, [cli, "lint", "--format=json", file], {
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    const problems = (JSON.parse(linted.stdout) as { problems: Array<{ severity: string; ruleId: string; message: string }> }).problems;
    expect(problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(problems.filter((p) => p.ruleId === "operation-operationId")).toEqual([]);
  });

  it("types the Outcome and describes the multipart form as a schema", async () => {
    const document = (await documentOf()) as Document & { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    const text = JSON.stringify(document);
    expect(text).toContain('"budget_exceeded"');
    expect(text).toContain('"sessionId"');
    const multipart = document.paths["/v1/runs"]?.["post"]?.requestBody?.content["multipart/form-data"]?.schema as {
      properties: Record<string, { format?: string; contentMediaType?: string }>;
      required: string[];
    };
    expect(Object.keys(multipart.properties)).toEqual(["request", "inputs"]);
    expect(multipart.required).toEqual(["request"]);
  });
});
