// A2A push notifications through the real app over the in-memory store and scripted Runs (route
// logic: no engine), over raw JSON-RPC, received by a real HTTP server on loopback: a task's events
// through to completed, each verified as Standard Webhooks with the tenant's secret and carrying the
// config's token (1.0 and 0.3 shapes); tenant B cannot read, list, change or delete A's configs
// (answered as an unknown task); a runs:read key lists but sets none; a sixth config is refused; and
// without --allow-private-callbacks a loopback url is refused before any Run is made.

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes, randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedRunner, useAppInMemory, type AppInMemory } from "../../../test/support/app.js";

const PUSH_TOKEN = "push-token-of-the-receiver-0123456789";

type Received = { readonly headers: IncomingHttpHeaders; readonly body: string };
type Answer = { readonly status: number; readonly text: string };

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The app as serve --allow-private-callbacks makes it (or not); its Runs say a word, then complete. */
const appOf = (name: string, allowPrivateCallbacks: boolean) =>
  useAppInMemory(name, {
    allowPrivateCallbacks,
    runner: scriptedRunner(() => ({
      events: [
        { type: "init", sessionId: randomUUID() },
        { type: "assistant_text", text: "Paris" },
      ],
    })),
  });

/** A receiver on loopback that records every POST and answers 204. */
async function receiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a-push`, received };
}

const rpcOf =
  (svc: AppInMemory) =>
  async (key: string, method: string, params: unknown, version: "1.0" | "0.3" = "1.0"): Promise<Answer> => {
    const answer = await svc.app().inject({
      method: "POST",
      url: "/a2a/jsonrpc",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(version === "1.0" ? { "a2a-version": "1.0" } : {}) },
      payload: JSON.stringify({ jsonrpc: "2.0", id: 9, method, params }),
    });
    return { status: answer.statusCode, text: answer.body };
  };

const message = (text: string) => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] });

async function until<T>(what: string, read: () => T, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An answer with every id it names written as <id>, to hold two answers side by side. */
const withoutIds = (answer: Answer, ...ids: string[]): Answer => ({ ...answer, text: ids.reduce((text, id) => text.split(id).join("<id>"), answer.text) });

describe("A2A push notifications", () => {
  const svc = appOf("a2a-push", true);
  const rpc = rpcOf(svc);
  const keys = { a: "", b: "", aReader: "" };
  let secret = "";
  let taskId = "";

  beforeAll(async () => {
    keys.a = await svc.makeKey("a", "runs:write");
    keys.b = await svc.makeKey("b", "runs:write");
    keys.aReader = await svc.makeKey("a", "runs:read");
    secret = (await svc.call(keys.a, "/v1/tenant")).json()["webhookSecret"] as string;
    expect(secret).toMatch(/^whsec_/);
  });

  it("says so on the card", async () => {
    const card = (await svc.app().inject({ method: "GET", url: "/.well-known/agent-card.json" })).json() as { capabilities: { pushNotifications?: boolean } };
    expect(card.capabilities.pushNotifications).toBe(true);
  });

  it("pushes a task's events through to completed, each signed with the tenant's secret and carrying the config's token", async () => {
    const hooks = await receiver();
    const sent = await rpc(keys.a, "SendMessage", {
      message: message("What is the capital of France?"),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: hooks.url, token: PUSH_TOKEN } },
    });
    const said = JSON.parse(sent.text) as { result?: { task?: { id: string } } };
    taskId = said.result?.task?.id ?? "";
    expect(taskId, sent.text).not.toBe("");
    expect((await svc.service().get(taskId))?.tenant).toBe("a");

    const completed = (r: Received) => r.body.includes("TASK_STATE_COMPLETED") && r.body.includes("statusUpdate");
    await until(
      "the completed status pushed",
      () => hooks.received,
      (received) => received.some(completed),
    );
    const events = hooks.received.map(({ body, headers }) => {
      expect(headers["x-a2a-notification-token"]).toBe(PUSH_TOKEN);
      expect(headers["content-type"]).toBe("application/a2a+json");
      expect(body).not.toContain(PUSH_TOKEN);
      expect(body).not.toContain(secret);
      // Throws unless the signature is the tenant's over this very body.
      return new Webhook(secret).verify(body, headers as Record<string, string>) as {
        task?: { id: string };
        statusUpdate?: { taskId: string; status: { state: string } };
        artifactUpdate?: { taskId: string };
      };
    });
    expect(events[0]?.task?.id).toBe(taskId);
    const states = events.flatMap((event) => (event.statusUpdate === undefined ? [] : [event.statusUpdate.status.state]));
    expect(states).toContain("TASK_STATE_WORKING");
    expect(states.at(-1)).toBe("TASK_STATE_COMPLETED");
    for (const event of events) expect(event.task?.id ?? event.statusUpdate?.taskId ?? event.artifactUpdate?.taskId).toBe(taskId);
    expect(new Set(hooks.received.map((r) => r.headers["webhook-id"])).size).toBe(hooks.received.length);
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString("base64")}`).verify(hooks.received[0]?.body ?? "", hooks.received[0]?.headers as Record<string, string>),
    ).toThrow();
  });

  it("pushes 0.3 bodies to a config set over 0.3", async () => {
    const hooks = await receiver();
    const sent = await rpc(
      keys.a,
      "message/send",
      {
        message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "What is the capital of France?" }] },
        configuration: { blocking: false, pushNotificationConfig: { url: hooks.url, token: PUSH_TOKEN } },
      },
      "0.3",
    );
    expect(sent.text).toContain('"result"');
    const done = (r: Received) => r.body.includes('"completed"');
    await until(
      "the completed task pushed",
      () => hooks.received,
      (received) => received.some(done),
    );
    for (const { body, headers } of hooks.received) {
      expect(headers["x-a2a-notification-token"]).toBe(PUSH_TOKEN);
      expect(new Webhook(secret).verify(body, headers as Record<string, string>)).toMatchObject({ kind: "task" });
    }
  });

  it("lets A list, get and add configs (never answering a token back), refuses a sixth, and a runs:read key sets none", async () => {
    const hooks = await receiver();
    const created = await rpc(keys.a, "CreateTaskPushNotificationConfig", { taskId, id: "second", url: hooks.url, token: PUSH_TOKEN });
    expect(JSON.parse(created.text)).toMatchObject({ result: { taskId, id: "second", url: hooks.url } });

    const listed = await rpc(keys.aReader, "ListTaskPushNotificationConfigs", { taskId });
    const configs = (JSON.parse(listed.text) as { result: { configs: Array<{ id: string; url: string; token?: string }> } }).result.configs;
    expect(configs).toHaveLength(2);
    expect(configs.map((c) => c.id)).toContain("second");
    expect(listed.text).not.toContain(PUSH_TOKEN);
    const got = await rpc(keys.a, "GetTaskPushNotificationConfig", { taskId, id: "second" });
    expect(JSON.parse(got.text)).toMatchObject({ result: { id: "second", url: hooks.url } });
    expect(got.text).not.toContain(PUSH_TOKEN);

    const readOnly = await rpc(keys.aReader, "CreateTaskPushNotificationConfig", { taskId, url: hooks.url });
    expect(readOnly.status).toBe(403);

    for (const id of ["third", "fourth", "fifth"]) {
      expect((await rpc(keys.a, "CreateTaskPushNotificationConfig", { taskId, id, url: hooks.url })).text).toContain('"result"');
    }
    const sixth = JSON.parse((await rpc(keys.a, "CreateTaskPushNotificationConfig", { taskId, id: "sixth", url: hooks.url })).text) as {
      error?: { code: number; message: string };
    };
    expect(sixth.error?.code).toBe(-32602);
    expect(sixth.error?.message).toContain("MAX_PUSH_CONFIGS_PER_TASK");
  });

  it("answers B about A's task's configs exactly as about an unknown task, and changes none of them", async () => {
    const hooks = await receiver();
    const calls: Array<[string, (id: string) => unknown, "1.0" | "0.3"]> = [
      ["GetTaskPushNotificationConfig", (id) => ({ taskId: id, id: "second" }), "1.0"],
      ["ListTaskPushNotificationConfigs", (id) => ({ taskId: id }), "1.0"],
      ["DeleteTaskPushNotificationConfig", (id) => ({ taskId: id, id: "second" }), "1.0"],
      ["CreateTaskPushNotificationConfig", (id) => ({ taskId: id, url: hooks.url, token: "b's" }), "1.0"],
      ["tasks/pushNotificationConfig/get", (id) => ({ id, pushNotificationConfigId: "second" }), "0.3"],
      ["tasks/pushNotificationConfig/list", (id) => ({ id }), "0.3"],
      ["tasks/pushNotificationConfig/delete", (id) => ({ id, pushNotificationConfigId: "second" }), "0.3"],
    ];
    for (const [method, params, version] of calls) {
      const unknown = randomBytes(8).toString("hex");
      const theirs = await rpc(keys.b, method, params(taskId), version);
      const none = await rpc(keys.b, method, params(unknown), version);
      expect(withoutIds(theirs, taskId), method).toEqual(withoutIds(none, unknown));
      expect(theirs.text, method).toMatch(/not found/i);
    }
    const listed = JSON.parse((await rpc(keys.a, "ListTaskPushNotificationConfigs", { taskId })).text) as { result: { configs: unknown[] } };
    expect(listed.result.configs).toHaveLength(5);

    // A deletes its own.
    expect((await rpc(keys.a, "DeleteTaskPushNotificationConfig", { taskId, id: "second" })).text).toContain('"result"');
    const after = JSON.parse((await rpc(keys.a, "ListTaskPushNotificationConfigs", { taskId })).text) as { result: { configs: Array<{ id: string }> } };
    expect(after.result.configs.map((c) => c.id)).not.toContain("second");
  });
});

describe("A2A push notifications without --allow-private-callbacks", () => {
  const svc = appOf("a2a-push-private", false);
  const rpc = rpcOf(svc);

  it("refuses a loopback push url, naming it and what to do, before any Run is made", async () => {
    const url = "http://127.0.0.1:9/a2a-push";
    const sent = await rpc(svc.token, "SendMessage", {
      message: message("What is the capital of France?"),
      configuration: { taskPushNotificationConfig: { url, token: PUSH_TOKEN } },
    });
    const error = (JSON.parse(sent.text) as { error?: { code: number; message: string } }).error;
    expect(error?.code, sent.text).toBe(-32602);
    expect(error?.message).toContain(JSON.stringify(url));
    expect(error?.message).toContain("loopback");
    expect(error?.message).toContain("--allow-private-callbacks");
    expect(sent.text).not.toContain(PUSH_TOKEN);
    expect((await svc.service().page({ limit: 100_000 })).records).toHaveLength(0);
  });
});
