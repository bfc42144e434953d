// A JSON body nested too deeply, over a real socket, on every route that takes JSON (POST /v1/runs as
// JSON and as multipart, A2A's JSON-RPC, /mcp, keys, tenants): a 400 naming MAX_BODY_DEPTH, never a
// 500, and the service answers on. A body nested to the limit is read as any other.

import { describe, expect, it } from "vitest";
import { useAppOnSocket } from "../../../test/support/app.js";
import { A2A_JSONRPC_PATH } from "../a2a-limits.js";
import { MAX_BODY_DEPTH, MCP_PATH } from "../limits.js";
import type { RunService } from "../runs/index.js";

const service = {
  submit: async () => "queue_full",
  get: () => undefined,
  list: () => [],
  counts: () => ({ queued: 0, running: 0 }),
} as unknown as RunService;
const app = useAppOnSocket("body-depth", () => service);

/** A JSON array `levels` deep: [[[...]]]. */
const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const TOO_DEEP = nested(10_000);

type Answer = { readonly status: number; readonly body: { readonly error?: string; readonly message?: string } };

async function send(method: string, path: string, body: string, type = "application/json"): Promise<Answer> {
  const response = await fetch(`${app.url()}${path}`, {
    method,
    headers: { authorization: `Bearer ${app.token}`, "content-type": type, accept: "application/json, text/event-stream" },
    body,
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

/** A multipart POST /v1/runs whose part `request` is `json`, sent as a plain field, as a field of type application/json, or as a file. */
function multipart(json: string, as: "field" | "json field" | "file"): [string, string] {
  const boundary = "----agentcage-depth";
  const disposition = as === "file" ? 'form-data; name="request"; filename="request.json"' : 'form-data; name="request"';
  const type = as === "field" ? "" : "Content-Type: application/json\r\n";
  const body = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n${json}\r\n--${boundary}--\r\n`;
  return [body, `multipart/form-data; boundary=${boundary}`];
}

const REFUSED = {
  status: 400,
  body: {
    error: "invalid_request",
    message: `the request body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep (MAX_BODY_DEPTH); send one nested at most ${MAX_BODY_DEPTH} levels`,
  },
};

describe("a JSON body nested deeper than MAX_BODY_DEPTH", () => {
  it("is refused 400 naming the limit on POST /v1/runs, as JSON and in each form of its multipart request part", async () => {
    expect(await send("POST", "/v1/runs", TOO_DEEP)).toEqual(REFUSED);
    expect(await send("POST", "/v1/runs", `{"cli":"claude","prompt":"hi","labels":{"a":${TOO_DEEP}}}`)).toEqual(REFUSED);
    for (const as of ["field", "json field", "file"] as const) expect(await send("POST", "/v1/runs", ...multipart(TOO_DEEP, as)), as).toEqual(REFUSED);
  });

  it("is refused 400 naming the limit on A2A's JSON-RPC, /mcp, keys and tenants, and the service answers on", async () => {
    const rpc = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"data","data":${TOO_DEEP}}]}}}`;
    expect(await send("POST", A2A_JSONRPC_PATH, rpc)).toEqual(REFUSED);
    expect(await send("POST", MCP_PATH, TOO_DEEP)).toEqual(REFUSED);
    expect(await send("POST", "/v1/keys", TOO_DEEP)).toEqual(REFUSED);
    expect(await send("PUT", "/v1/tenants/team-a", TOO_DEEP)).toEqual(REFUSED);
    expect((await fetch(`${app.url()}/healthz`)).status).toBe(200);
  });
});

describe("a JSON body nested to MAX_BODY_DEPTH", () => {
  it("is read as any other: refused, if at all, by its route's schema in its own words", async () => {
    // The body is level 1, labels 2, its value the rest.
    const atTheLimit = await send("POST", "/v1/runs", `{"cli":"claude","prompt":"hi","labels":{"a":${nested(MAX_BODY_DEPTH - 2)}}}`);
    expect(atTheLimit).toMatchObject({ status: 400, body: { error: "invalid_request", message: expect.stringContaining("labels.a") } });
    expect(atTheLimit.body.message).not.toContain("MAX_BODY_DEPTH");
    expect(await send("POST", "/v1/runs", `{"cli":"claude","prompt":"hi","labels":{"a":${nested(MAX_BODY_DEPTH - 1)}}}`)).toEqual(REFUSED);
    expect(await send("POST", "/v1/runs", `{"cli":"claude","prompt":"[[[[ not nesting: a string ]]]]"}`)).toMatchObject({
      status: 429,
      body: { error: "queue_full" },
    });
  });
});
